// Package refdriver is the reference driver of the conformance suite: the
// driver contract implemented on the official Go SDKs (openai-go for Chat
// Completions and Responses, anthropic-sdk-go, google.golang.org/genai),
// streamed and not. It converts MCP CallToolResults to each provider's
// native result the way the seeds prescribe, and, with a Break, makes one
// classic mistake on purpose so the suite can prove it catches it.
package refdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/task"
)

// Env is where the driver finds the providers: the base URLs and the key of
// the driver contract.
type Env struct {
	OpenAIBaseURL    string // includes /v1
	AnthropicBaseURL string
	GeminiBaseURL    string
	APIKey           string
	// HTTPClient is used for every request (nil = a fresh client).
	HTTPClient *http.Client
}

// EnvFromOS reads the contract's environment variables.
func EnvFromOS() Env {
	return EnvFromMap(func(k string) string { return os.Getenv(k) })
}

// EnvFromMap reads the contract's variables through get (for a task's Env
// map, as sent to a --driver-url server).
func EnvFromMap(get func(string) string) Env {
	key := get(task.EnvOpenAIKey)
	for _, k := range []string{task.EnvAnthKey, task.EnvGemKey, task.EnvGoogleKey} {
		if key == "" {
			key = get(k)
		}
	}
	return Env{OpenAIBaseURL: get(task.EnvOpenAIURL), AnthropicBaseURL: get(task.EnvAnthURL), GeminiBaseURL: get(task.EnvGemURL), APIKey: key}
}

// Break names one deliberate mistake.
type Break string

// BreakInfo documents a break variant.
type BreakInfo struct {
	Name        Break
	Dialects    []conv.Dialect // where the mistake can be made
	Description string
}

// Break variants. Each is a mistake real adapters make; the seeds' common
// pitfalls tables name most of them.
const (
	None                   Break = ""
	SwappedIDs             Break = "swapped-ids"
	UnansweredCall         Break = "unanswered-call"
	DropReasoning          Break = "drop-reasoning"
	GeminiStringify        Break = "gemini-stringify-response"
	OmitIsError            Break = "omit-is-error"
	ReorderSameName        Break = "reorder-same-name"
	StripSignature         Break = "strip-signature"
	DuplicateRef           Break = "duplicate-ref"
	ImageInChatTool        Break = "image-in-chat-tool"
	TextBeforeToolResult   Break = "text-before-tool-result"
	AnthropicMessageID     Break = "anthropic-id-for-tool-use-id"
	ArgumentsAsObject      Break = "arguments-as-object"
	ItemIDForCallID        Break = "item-id-for-call-id"
	OutputAsObject         Break = "output-as-object"
	SplitResults           Break = "split-results"
	DropAssistantTurn      Break = "drop-assistant-turn"
	Gemini2Multimodal      Break = "gemini2-multimodal"
	DropData               Break = "drop-data"
	CrashOnUnknownTool     Break = "crash-on-unknown-tool"
	IgnoreFinalText        Break = "ignore-final-text"
	UnorderedGeminiResults Break = "split-gemini-responses"
)

var all = []BreakInfo{
	{SwappedIDs, nil, "answer the first two calls of a batch with each other's ids"},
	{UnansweredCall, nil, "leave the last call of a batch without a result"},
	{DropReasoning, []conv.Dialect{conv.OpenAIResponses}, "replay function_call items without the reasoning items before them"},
	{GeminiStringify, []conv.Dialect{conv.Gemini}, `send structured results as {"output": "<JSON string>"} instead of an object`},
	{OmitIsError, nil, "send tool errors as ordinary results (no is_error, no error marker)"},
	{ReorderSameName, []conv.Dialect{conv.Gemini}, "send Gemini function responses in reverse call order"},
	{StripSignature, []conv.Dialect{conv.Gemini}, "rebuild the model turn without its thought signatures"},
	{DuplicateRef, []conv.Dialect{conv.Gemini}, "reference the same displayName twice from a function response"},
	{ImageInChatTool, []conv.Dialect{conv.OpenAIChat}, "put image_url parts in Chat Completions tool messages"},
	{TextBeforeToolResult, []conv.Dialect{conv.Anthropic}, "put a text block before the tool_result blocks"},
	{AnthropicMessageID, []conv.Dialect{conv.Anthropic}, "use the message id (msg_…) as tool_use_id"},
	{ArgumentsAsObject, []conv.Dialect{conv.OpenAIChat}, "replay tool_calls[].function.arguments as an object instead of a JSON string"},
	{ItemIDForCallID, []conv.Dialect{conv.OpenAIResponses}, "answer with the item id (fc_…) instead of call_id"},
	{OutputAsObject, []conv.Dialect{conv.OpenAIResponses}, "send function_call_output.output as a JSON object"},
	{SplitResults, []conv.Dialect{conv.Anthropic}, "send each tool_result in its own user message"},
	{DropAssistantTurn, []conv.Dialect{conv.Anthropic, conv.OpenAIChat}, "send the results without the assistant turn that made the calls"},
	{Gemini2Multimodal, []conv.Dialect{conv.Gemini}, "attach inlineData parts to function responses on every model"},
	{DropData, nil, "send an empty result instead of the tool's output"},
	{CrashOnUnknownTool, nil, "exit with an error when the model calls an undeclared tool"},
	{IgnoreFinalText, nil, "report an empty final text"},
	{UnorderedGeminiResults, []conv.Dialect{conv.Gemini}, "send each function response of a batch in its own content, a model text content between them"},
}

// Breaks lists the break variants, sorted by name.
func Breaks() []BreakInfo {
	out := append([]BreakInfo(nil), all...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupBreak validates a break name.
func LookupBreak(name string) (BreakInfo, bool) {
	if name == "" {
		return BreakInfo{}, true
	}
	for _, b := range all {
		if string(b.Name) == name {
			return b, true
		}
	}
	return BreakInfo{}, false
}

// Driver runs tasks.
type Driver struct {
	Break Break
}

// Run performs one task and returns the model's final text.
func (d *Driver) Run(ctx context.Context, env Env, t *task.Task) (string, error) {
	if env.APIKey == "" {
		return "", errors.New("no API key in the environment")
	}
	if t.MaxTurns <= 0 {
		t.MaxTurns = 8
	}
	loop, ok := loops[t.Dialect]
	if !ok {
		return "", fmt.Errorf("unknown dialect %q", t.Dialect)
	}
	text, err := loop(d, ctx, env, t)
	if err == nil && d.Break == IgnoreFinalText {
		text = ""
	}
	return text, err
}

// loops are the tool loops on each dialect's SDK (chat.go, responses.go,
// anthropic.go, gemini.go).
var loops = map[conv.Dialect]func(*Driver, context.Context, Env, *task.Task) (string, error){
	conv.OpenAIChat:      (*Driver).runChat,
	conv.OpenAIResponses: (*Driver).runResponses,
	conv.Anthropic:       (*Driver).runAnthropic,
	conv.Gemini:          (*Driver).runGemini,
}

// errTooManyTurns ends a loop that never reaches a text answer.
func errTooManyTurns(n int) error {
	return fmt.Errorf("no final text after %d model turns", n)
}

// answer runs the contract's tool for one call, honouring the breaks
// that change what a call is answered with.
func (d *Driver) answer(t *task.Task, name string, args map[string]any, argsErr bool) (task.CallToolResult, error) {
	declared := t.Tool(name) != nil
	if !declared && d.Break == CrashOnUnknownTool {
		return task.CallToolResult{}, fmt.Errorf("tool %q is not declared", name)
	}
	switch {
	case argsErr && d.Break == LibraryErrorWording:
		return task.ErrorResult(argumentsWording), nil
	case argsErr && d.Break == ValidateArguments:
		return task.ErrorResult(fmt.Sprintf("Tool input validation failed for %s: the arguments are not valid JSON", name)), nil
	case argsErr:
		return task.ErrorResult("arguments are not a JSON object"), nil
	case !declared && d.Break == LibraryErrorWording:
		return unknownToolWording(t, name), nil
	}
	if d.Break == ValidateArguments {
		if msg := validationError(t, name, args); msg != "" {
			return task.ErrorResult(msg), nil
		}
	}
	out := t.Answer(name, args)
	switch d.Break {
	case DropData:
		return task.CallToolResult{Content: []task.Content{{Type: "text", Text: ""}}, IsError: out.Result.IsError}, nil
	case LibraryErrorWording:
		return libraryWording(name, out.Result), nil
	}
	return out.Result, nil
}

// parseArgs decodes wire arguments (a JSON string); ok=false when they are
// not an object.
func parseArgs(raw string) (map[string]any, bool) { return task.ParseArguments(raw) }

// errorText marks an error result's text the way OpenAI and Gemini
// adapters may (their wire formats have no error flag): an "Error: "
// prefix, unless the text already says it is an error.
func errorText(r task.CallToolResult, b Break) string {
	text := r.Text()
	switch {
	case r.IsError && b == ErrorAsNull:
		return "null"
	case !r.IsError || b == OmitIsError || b == LibraryErrorWording:
		return text
	case strings.HasPrefix(strings.ToLower(text), "error"):
		return text
	}
	return "Error: " + text
}

// plainText is the text form of a result for wires that carry only text:
// the text items, else the structured content as JSON, plus a note per
// binary item.
func plainText(r task.CallToolResult, b Break) string {
	text := errorText(r, b)
	if text == "" && r.StructuredContent != nil {
		j, _ := json.Marshal(r.StructuredContent)
		text = string(j)
		if r.IsError && b != OmitIsError {
			text = "Error: " + text
		}
	}
	for _, m := range r.Media() {
		note := fmt.Sprintf("[%s attachment omitted: this API takes no media in tool results]", m.MimeType)
		if text != "" {
			text += "\n"
		}
		text += note
	}
	return text
}

// rewriter is an http.RoundTripper that edits request bodies: the way a
// break variant makes mistakes the typed SDK params cannot express.
type rewriter struct {
	base http.RoundTripper
	edit func(body []byte) []byte
}

func (rw *rewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	if rw.edit != nil && r.Body != nil && r.Method == http.MethodPost {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		b = rw.edit(b)
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	return rw.base.RoundTrip(r)
}

// drainOnClose reads a response body to its end before closing it. An
// SDK stops reading a stream at its last event ([DONE], message_stop),
// while the server may still be finishing the exchange (the mock
// journals it as its handler returns); reading on to the end of the
// body means that, when the driver reports, the provider is done with
// every request it sent.
type drainOnClose struct{ base http.RoundTripper }

func (d drainOnClose) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := d.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &drainingBody{ReadCloser: resp.Body}
	}
	return resp, err
}

type drainingBody struct{ io.ReadCloser }

func (b *drainingBody) Close() error {
	// Bounded: a body that goes on is cut off after 1 MiB (or when the
	// request's context ends).
	_, _ = io.Copy(io.Discard, io.LimitReader(b.ReadCloser, 1<<20))
	return b.ReadCloser.Close()
}

// httpClient returns the client for a run, wrapping edit around it.
func httpClient(env Env, edit func([]byte) []byte) *http.Client {
	var base http.RoundTripper = http.DefaultTransport
	if env.HTTPClient != nil && env.HTTPClient.Transport != nil {
		base = env.HTTPClient.Transport
	}
	base = drainOnClose{base: base}
	c := &http.Client{Transport: base}
	if env.HTTPClient != nil {
		c.Timeout = env.HTTPClient.Timeout
	}
	if edit != nil {
		c.Transport = &rewriter{base: base, edit: edit}
	}
	return c
}

// mustJSON marshals a value built by this package (cannot fail).
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// swapFirstTwo swaps the first two ids of a batch (swapped-ids break).
func swapFirstTwo(ids []string) {
	if len(ids) >= 2 {
		ids[0], ids[1] = ids[1], ids[0]
	}
}

// mediaName is the displayName given to the i-th binary item of a result.
func mediaName(m task.Media, i int) string {
	if m.URI != "" {
		if j := strings.LastIndex(m.URI, "/"); j >= 0 && j < len(m.URI)-1 {
			return m.URI[j+1:]
		}
	}
	ext := "bin"
	if _, sub, ok := strings.Cut(m.MimeType, "/"); ok && sub != "" {
		ext = sub
		if sub == "plain" {
			ext = "txt"
		}
	}
	kind := "file"
	if m.IsImage() {
		kind = "image"
	}
	return fmt.Sprintf("%s_%d.%s", kind, i+1, ext)
}
