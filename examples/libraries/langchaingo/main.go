// Command langchaingo-driver is a toolwire driver on langchaingo: one
// llms.Model per dialect (openai: Chat Completions, anthropic, googleai over
// REST) and the tool loop of langchaingo's function-calling examples:
// GenerateContent with llms.WithTools, the AI message with its tool calls
// appended to the history, one tool message per call.
//
//	toolwire conform --driver examples/libraries/langchaingo/langchaingo-driver --dialects openai-chat,anthropic,gemini
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/googleai"
	"github.com/tmc/langchaingo/llms/openai"
	"google.golang.org/api/option"
)

// retryOutputTokens is the limit a user raises to after a turn was cut by
// the task's max_output_tokens.
const retryOutputTokens = 4096

type task struct {
	Model           string `json:"model"`
	System          string `json:"system"`
	Prompt          string `json:"prompt"`
	ToolChoice      string `json:"tool_choice"`
	MaxTurns        int    `json:"max_turns"`
	MaxOutputTokens int    `json:"max_output_tokens"`
	Thinking        *struct {
		BudgetTokens int `json:"budget_tokens"`
	} `json:"thinking"`
	Tools []struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
		Strict      bool           `json:"strict"`
		Results     []struct {
			When   map[string]any `json:"when"`
			Result callToolResult `json:"result"`
		} `json:"results"`
	} `json:"tools"`
}

type callToolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Resource *struct {
			Text string `json:"text"`
		} `json:"resource"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func main() {
	text, err := run(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, _ := json.Marshal(map[string]string{"final_text": text})
	fmt.Println(string(out))
}

func run(ctx context.Context) (string, error) {
	b, err := os.ReadFile(os.Getenv("TOOLWIRE_TASK"))
	if err != nil {
		return "", err
	}
	var t task
	if err := json.Unmarshal(b, &t); err != nil {
		return "", err
	}
	model, err := newModel(ctx, t)
	if err != nil {
		return "", err
	}
	var tools []llms.Tool
	for _, tl := range t.Tools {
		params := tl.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		tools = append(tools, llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name: tl.Name, Description: tl.Description, Parameters: params, Strict: tl.Strict}})
	}
	var history []llms.MessageContent
	if t.System != "" {
		history = append(history, llms.TextParts(llms.ChatMessageTypeSystem, t.System))
	}
	history = append(history, llms.TextParts(llms.ChatMessageTypeHuman, t.Prompt))
	limit := t.MaxOutputTokens
	maxTurns := t.MaxTurns
	if maxTurns <= 0 {
		maxTurns = 8
	}
	for turn := 0; turn < maxTurns; turn++ {
		opts := []llms.CallOption{llms.WithTools(tools)}
		if c := toolChoice(t.ToolChoice); c != nil && turn == 0 {
			// forced only on the first request: forcing every turn never ends the loop
			opts = append(opts, llms.WithToolChoice(c))
		}
		if limit > 0 {
			opts = append(opts, llms.WithMaxTokens(limit))
		}
		if t.Thinking != nil {
			opts = append(opts, llms.WithThinkingBudget(t.Thinking.BudgetTokens), llms.WithMaxTokens(max(limit, t.Thinking.BudgetTokens+1024)))
		}
		if os.Getenv("TOOLWIRE_STREAM") == "1" {
			opts = append(opts, llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
		}
		resp, err := model.GenerateContent(ctx, history, opts...)
		if err != nil {
			return "", err
		}
		if len(resp.Choices) == 0 {
			return "", errors.New("no choices in the response")
		}
		choice := resp.Choices[0]
		if cut(choice.StopReason) && limit > 0 && limit < retryOutputTokens {
			limit = retryOutputTokens
			turn--
			continue
		}
		if len(choice.ToolCalls) == 0 {
			return choice.Content, nil
		}
		// the model's text, when there is any, then its calls (an empty text
		// part is not sent: the APIs refuse empty text blocks)
		assistant := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		if choice.Content != "" {
			assistant.Parts = append(assistant.Parts, llms.TextContent{Text: choice.Content})
		}
		for _, tc := range choice.ToolCalls {
			assistant.Parts = append(assistant.Parts, tc)
		}
		history = append(history, assistant)
		for _, tc := range choice.ToolCalls {
			history = append(history, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: answer(t, tc.FunctionCall.Name, tc.FunctionCall.Arguments)},
			}})
		}
	}
	return "", errors.New("no final answer within max_turns")
}

func newModel(ctx context.Context, t task) (llms.Model, error) {
	switch d := os.Getenv("TOOLWIRE_DIALECT"); d {
	case "openai-chat":
		return openai.New(openai.WithBaseURL(os.Getenv("OPENAI_BASE_URL")), openai.WithToken(os.Getenv("OPENAI_API_KEY")), openai.WithModel(t.Model))
	case "anthropic":
		// langchaingo's base URL includes the API version
		return anthropic.New(anthropic.WithBaseURL(strings.TrimRight(os.Getenv("ANTHROPIC_BASE_URL"), "/")+"/v1"), anthropic.WithToken(os.Getenv("ANTHROPIC_API_KEY")), anthropic.WithModel(t.Model))
	case "gemini":
		// googleai.Options.ClientOptions takes the Google client's own
		// options: the endpoint is one of them
		endpoint := func(o *googleai.Options) {
			o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(os.Getenv("GOOGLE_GEMINI_BASE_URL")))
		}
		return googleai.New(ctx, googleai.WithAPIKey(os.Getenv("GEMINI_API_KEY")), googleai.WithRest(), googleai.WithDefaultModel(t.Model), endpoint)
	default:
		return nil, fmt.Errorf("dialect %s: langchaingo has no client for it", d)
	}
}

func toolChoice(c string) any {
	switch c {
	case "":
		return nil
	case "auto", "none", "required":
		return c
	}
	return llms.ToolChoice{Type: "function", Function: &llms.FunctionReference{Name: c}}
}

func cut(stopReason string) bool {
	switch strings.ToLower(stopReason) {
	case "length", "max_tokens", "finishreasonmaxtokens":
		return true
	}
	return false
}

// answer is the canned result's text; langchaingo's ToolCallResponse has
// no error flag, so an MCP error says so in its text.
func answer(t task, name, rawArgs string) string {
	args := map[string]any{}
	if strings.TrimSpace(rawArgs) != "" {
		if err := json.Unmarshal([]byte(rawArgs), &args); err != nil || args == nil {
			return "Error: arguments are not a JSON object"
		}
	}
	for _, tl := range t.Tools {
		if tl.Name != name {
			continue
		}
		if len(tl.Results) == 0 {
			return "ok"
		}
		for _, r := range tl.Results {
			if subset(r.When, args) {
				return text(r.Result)
			}
		}
		return "Error: no result for " + name + " with these arguments"
	}
	return "Error: unknown tool " + name
}

func subset(when, args map[string]any) bool {
	for k, v := range when {
		a, _ := json.Marshal(args[k])
		w, _ := json.Marshal(v)
		if _, ok := args[k]; !ok || string(a) != string(w) {
			return false
		}
	}
	return true
}

func text(r callToolResult) string {
	var parts []string
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			parts = append(parts, c.Text)
		case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
			parts = append(parts, c.Resource.Text)
		}
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		parts = append(parts, string(b))
	}
	s := strings.Join(parts, "\n")
	if r.IsError && !strings.HasPrefix(s, "Error") {
		s = "Error: " + s
	}
	return s
}
