// Command driver is a complete minimal toolwire driver: the driver contract
// over raw HTTP (standard library only), for all four dialects, without
// streaming. Build it and run the suite with
//
//	go build -o driver driver.go
//	toolwire conform --driver ./driver --features core
//
// A real driver wraps your library: replace the four run* loops with calls
// into it, keep the result picking and the final JSON line.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"
)

// taskFile is the file named by TOOLWIRE_TASK.
type taskFile struct {
	Model    string `json:"model"`
	System   string `json:"system"`
	Prompt   string `json:"prompt"`
	MaxTurns int    `json:"max_turns"`
	Tools    []tool `json:"tools"`
	// ToolChoice is "", "auto", "none", "required" or a tool's name.
	ToolChoice string `json:"tool_choice"`
	// Output, when set, asks for the final answer as JSON in its schema.
	Output *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
	} `json:"output"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
	Results     []struct {
		When   map[string]any `json:"when"`
		Result toolResult     `json:"result"`
	} `json:"results"`
}

// toolResult is an MCP CallToolResult; only what the conversion reads.
type toolResult struct {
	Content           []contentItem   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

type contentItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

var (
	task   = taskFile{MaxTurns: 8} // a task without max_turns gets 8
	client = &http.Client{Timeout: 60 * time.Second}
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	if os.Getenv("TOOLWIRE_STREAM") == "1" {
		return errors.New("this minimal driver does not stream; run the suite without the streaming feature")
	}
	raw, err := os.ReadFile(os.Getenv("TOOLWIRE_TASK"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, &task); err != nil {
		return fmt.Errorf("task: %w", err)
	}
	loops := map[string]func() (string, error){
		"openai-chat":      runOpenAIChat,
		"openai-responses": runOpenAIResponses,
		"anthropic":        runAnthropic,
		"gemini":           runGemini,
	}
	loop, ok := loops[os.Getenv("TOOLWIRE_DIALECT")]
	if !ok {
		return fmt.Errorf("unknown dialect %q", os.Getenv("TOOLWIRE_DIALECT"))
	}
	text, err := loop()
	if err != nil {
		return err
	}
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	return out.Encode(map[string]string{"final_text": text})
}

// post sends body as JSON and decodes the answer into into. Answers are
// kept as json.RawMessage wherever they go back to the model unchanged, so
// ids, signatures and numbers survive byte for byte.
func post(url string, body any, headers map[string]string, into any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodPost, url, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 { // the mock explains a broken rule in the body
		return fmt.Errorf("%d %s", resp.StatusCode, answer)
	}
	return json.Unmarshal(answer, into)
}

func errorResult(text string) toolResult {
	return toolResult{Content: []contentItem{{Type: "text", Text: text}}, IsError: true}
}

// callTool picks the first canned result whose `when` is a subset of the
// arguments. An unknown tool or arguments that are not a JSON object
// become error results: the model gets to correct itself.
func callTool(name string, rawArgs json.RawMessage) toolResult {
	var decl *tool
	for i := range task.Tools {
		if task.Tools[i].Name == name {
			decl = &task.Tools[i]
			break
		}
	}
	if decl == nil {
		return errorResult("Error: unknown tool " + name)
	}
	if len(bytes.TrimSpace(rawArgs)) == 0 {
		rawArgs = json.RawMessage("{}")
	}
	var args map[string]any
	if err := json.Unmarshal(rawArgs, &args); err != nil || args == nil {
		return errorResult("Error: arguments are not a JSON object")
	}
	for _, r := range decl.Results {
		if matches(r.When, args) {
			return r.Result
		}
	}
	return errorResult("Error: no result for " + name)
}

func matches(when, args map[string]any) bool {
	for k, v := range when {
		if !reflect.DeepEqual(args[k], v) {
			return false
		}
	}
	return true
}

// textOf is the result as one string: its text items, else its
// structured content as JSON; errors say so in their first word.
func textOf(r toolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	if len(parts) == 0 && len(r.StructuredContent) > 0 {
		var compact bytes.Buffer
		if json.Compact(&compact, r.StructuredContent) == nil {
			parts = append(parts, compact.String())
		}
	}
	text := strings.Join(parts, "\n")
	if r.IsError && !strings.HasPrefix(text, "Error") {
		text = "Error: " + text
	}
	return text
}

// structured is the result's structuredContent when it is a JSON object.
func structured(r toolResult) (json.RawMessage, bool) {
	trimmed := bytes.TrimSpace(r.StructuredContent)
	return trimmed, len(trimmed) > 0 && trimmed[0] == '{'
}

// parameters is the declared schema; an absent or empty one declares an
// object without properties, which every dialect accepts.
func parameters(t tool) json.RawMessage {
	switch strings.TrimSpace(string(t.Parameters)) {
	case "", "null", "{}":
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return t.Parameters
}

var errNoFinalAnswer = errors.New("no final answer within max_turns")

// choiceForms are one dialect's spellings of a tool choice.
type choiceForms struct {
	auto, none, required any
	name                 func(string) any
}

// firstChoice is the task's tool_choice in the dialect's form, on the first
// request only (nil otherwise): a loop that kept forcing a tool would never
// end, since the model calls again.
func firstChoice(turn int, f choiceForms) any {
	switch c := task.ToolChoice; {
	case turn > 0 || c == "":
		return nil
	case c == "auto":
		return f.auto
	case c == "none":
		return f.none
	case c == "required":
		return f.required
	default:
		return f.name(c)
	}
}

func runOpenAIChat() (string, error) {
	url, auth := os.Getenv("OPENAI_BASE_URL")+"/chat/completions", map[string]string{"Authorization": "Bearer " + os.Getenv("OPENAI_API_KEY")}
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict,omitempty"`
	}
	type toolDecl struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	var tools []toolDecl
	for _, t := range task.Tools {
		tools = append(tools, toolDecl{"function", function{t.Name, t.Description, parameters(t), t.Strict}})
	}
	forms := choiceForms{"auto", "none", "required", func(n string) any {
		return map[string]any{"type": "function", "function": map[string]string{"name": n}}
	}}
	turn := 0
	var messages []any
	if task.System != "" {
		messages = append(messages, map[string]string{"role": "system", "content": task.System})
	}
	messages = append(messages, map[string]string{"role": "user", "content": task.Prompt})
	for range task.MaxTurns {
		var answer struct {
			Choices []struct {
				Message struct {
					Content   *string           `json:"content"`
					ToolCalls []json.RawMessage `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		body := map[string]any{"model": task.Model, "messages": messages, "tools": tools}
		if c := firstChoice(turn, forms); c != nil {
			body["tool_choice"] = c
		}
		if o := task.Output; o != nil { // the final answer in the task's schema
			body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": o.Name, "schema": o.Schema, "strict": true}}
		}
		turn++
		if err := post(url, body, auth, &answer); err != nil {
			return "", err
		}
		if len(answer.Choices) == 0 {
			return "", errors.New("openai-chat: no choices")
		}
		msg := answer.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			if msg.Content == nil {
				return "", nil
			}
			return *msg.Content, nil
		}
		// The calls go back as they came; content stays null beside them.
		messages = append(messages, map[string]any{"role": "assistant", "content": msg.Content, "tool_calls": msg.ToolCalls})
		for _, raw := range msg.ToolCalls {
			var call struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			}
			if err := json.Unmarshal(raw, &call); err != nil {
				return "", fmt.Errorf("openai-chat: tool call: %w", err)
			}
			result := callTool(call.Function.Name, json.RawMessage(call.Function.Arguments))
			messages = append(messages, map[string]string{"role": "tool", "tool_call_id": call.ID, "content": textOf(result)})
		}
	}
	return "", errNoFinalAnswer
}

func runOpenAIResponses() (string, error) {
	url, auth := os.Getenv("OPENAI_BASE_URL")+"/responses", map[string]string{"Authorization": "Bearer " + os.Getenv("OPENAI_API_KEY")}
	type toolDecl struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict,omitempty"`
	}
	var tools []toolDecl
	for _, t := range task.Tools {
		tools = append(tools, toolDecl{"function", t.Name, t.Description, parameters(t), t.Strict})
	}
	forms := choiceForms{"auto", "none", "required", func(n string) any { return map[string]string{"type": "function", "name": n} }}
	items := []any{map[string]string{"role": "user", "content": task.Prompt}}
	for turn := range task.MaxTurns {
		body := map[string]any{"model": task.Model, "input": items, "tools": tools}
		if c := firstChoice(turn, forms); c != nil {
			body["tool_choice"] = c
		}
		if task.System != "" {
			body["instructions"] = task.System
		}
		if o := task.Output; o != nil {
			body["text"] = map[string]any{"format": map[string]any{"type": "json_schema", "name": o.Name, "schema": o.Schema, "strict": true}}
		}
		var answer struct {
			Output []json.RawMessage `json:"output"`
		}
		if err := post(url, body, auth, &answer); err != nil {
			return "", err
		}
		type item struct {
			Type      string `json:"type"`
			Name      string `json:"name"`
			CallID    string `json:"call_id"`
			Arguments string `json:"arguments"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		var calls []item
		var text strings.Builder
		for _, raw := range answer.Output {
			var it item
			if err := json.Unmarshal(raw, &it); err != nil {
				return "", fmt.Errorf("openai-responses: output item: %w", err)
			}
			switch it.Type {
			case "function_call":
				calls = append(calls, it)
			case "message":
				for _, c := range it.Content {
					text.WriteString(c.Text)
				}
			}
		}
		if len(calls) == 0 {
			return text.String(), nil
		}
		for _, raw := range answer.Output { // every output item goes back, reasoning included
			items = append(items, raw)
		}
		for _, c := range calls {
			result := callTool(c.Name, json.RawMessage(c.Arguments))
			items = append(items, map[string]string{"type": "function_call_output", "call_id": c.CallID, "output": textOf(result)})
		}
	}
	return "", errNoFinalAnswer
}

func runAnthropic() (string, error) {
	url := os.Getenv("ANTHROPIC_BASE_URL") + "/v1/messages"
	headers := map[string]string{"x-api-key": os.Getenv("ANTHROPIC_API_KEY"), "anthropic-version": "2023-06-01"}
	type toolDecl struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
		Strict      bool            `json:"strict,omitempty"`
	}
	type toolResultBlock struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error,omitempty"`
	}
	var tools []toolDecl
	for _, t := range task.Tools {
		tools = append(tools, toolDecl{t.Name, t.Description, parameters(t), t.Strict})
	}
	forms := choiceForms{map[string]string{"type": "auto"}, map[string]string{"type": "none"}, map[string]string{"type": "any"},
		func(n string) any { return map[string]string{"type": "tool", "name": n} }}
	messages := []any{map[string]string{"role": "user", "content": task.Prompt}}
	for turn := range task.MaxTurns {
		body := map[string]any{"model": task.Model, "max_tokens": 1024, "messages": messages, "tools": tools}
		if c := firstChoice(turn, forms); c != nil {
			body["tool_choice"] = c
		}
		if task.System != "" {
			body["system"] = task.System
		}
		if o := task.Output; o != nil {
			body["output_config"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": o.Schema}}
		}
		var answer struct {
			Content []json.RawMessage `json:"content"`
		}
		if err := post(url, body, headers, &answer); err != nil {
			return "", err
		}
		var results []toolResultBlock
		var text strings.Builder
		for _, raw := range answer.Content {
			var block struct {
				Type  string          `json:"type"`
				ID    string          `json:"id"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
				Text  string          `json:"text"`
			}
			if err := json.Unmarshal(raw, &block); err != nil {
				return "", fmt.Errorf("anthropic: content block: %w", err)
			}
			switch block.Type {
			case "text":
				text.WriteString(block.Text)
			case "tool_use": // one tool_result per tool_use, ids echoed, errors flagged
				result := callTool(block.Name, block.Input)
				results = append(results, toolResultBlock{"tool_result", block.ID, textOf(result), result.IsError})
			}
		}
		if len(results) == 0 {
			return text.String(), nil
		}
		messages = append(messages,
			map[string]any{"role": "assistant", "content": answer.Content}, // thinking blocks and signatures included
			map[string]any{"role": "user", "content": results})             // tool_result blocks only, so they come first
	}
	return "", errNoFinalAnswer
}

func runGemini() (string, error) {
	url := os.Getenv("GOOGLE_GEMINI_BASE_URL") + "/v1beta/models/" + task.Model + ":generateContent"
	headers := map[string]string{"x-goog-api-key": os.Getenv("GEMINI_API_KEY")}
	type declaration struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parametersJsonSchema"`
	}
	type functionResponse struct {
		Name     string `json:"name"`
		ID       string `json:"id,omitempty"`
		Response any    `json:"response"`
	}
	type responsePart struct {
		FunctionResponse functionResponse `json:"functionResponse"`
	}
	var decls []declaration
	for _, t := range task.Tools {
		decls = append(decls, declaration{t.Name, t.Description, parameters(t)})
	}
	tools := []map[string]any{{"functionDeclarations": decls}}
	contents := []any{map[string]any{"role": "user", "parts": []map[string]string{{"text": task.Prompt}}}}
	forms := choiceForms{map[string]string{"mode": "AUTO"}, map[string]string{"mode": "NONE"}, map[string]string{"mode": "ANY"},
		func(n string) any { return map[string]any{"mode": "ANY", "allowedFunctionNames": []string{n}} }}
	for turn := range task.MaxTurns {
		body := map[string]any{"contents": contents, "tools": tools}
		if c := firstChoice(turn, forms); c != nil {
			body["toolConfig"] = map[string]any{"functionCallingConfig": c}
		}
		if task.System != "" {
			body["systemInstruction"] = map[string]any{"parts": []map[string]string{{"text": task.System}}}
		}
		if o := task.Output; o != nil {
			body["generationConfig"] = map[string]any{"responseMimeType": "application/json", "responseJsonSchema": o.Schema}
		}
		var answer struct {
			Candidates []struct {
				Content json.RawMessage `json:"content"`
			} `json:"candidates"`
		}
		if err := post(url, body, headers, &answer); err != nil {
			return "", err
		}
		if len(answer.Candidates) == 0 {
			return "", errors.New("gemini: no candidates")
		}
		var content struct {
			Parts []struct {
				Text         string `json:"text"`
				FunctionCall *struct {
					Name string          `json:"name"`
					ID   string          `json:"id"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		}
		if err := json.Unmarshal(answer.Candidates[0].Content, &content); err != nil {
			return "", fmt.Errorf("gemini: content: %w", err)
		}
		var parts []responsePart
		var text strings.Builder
		for _, p := range content.Parts {
			text.WriteString(p.Text)
			c := p.FunctionCall
			if c == nil {
				continue
			}
			// One response per call, in call order, the response always an object.
			result := callTool(c.Name, c.Args)
			var response any = map[string]string{"output": textOf(result)}
			if result.IsError {
				response = map[string]string{"error": textOf(result)}
			} else if object, ok := structured(result); ok {
				response = object
			}
			parts = append(parts, responsePart{functionResponse{c.Name, c.ID, response}})
		}
		if len(parts) == 0 {
			return text.String(), nil
		}
		contents = append(contents,
			answer.Candidates[0].Content, // as sent: thought signatures stay on their parts
			map[string]any{"role": "user", "parts": parts})
	}
	return "", errNoFinalAnswer
}
