// Package task is the driver contract of the conformance suite: the task
// file a driver reads, the MCP CallToolResult its tools return, and the
// reply it prints. Drivers in any language implement the same contract;
// this package is what the Go side (the suite and the reference driver)
// shares.
package task

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// Environment variables of the driver contract; each dialect adds the
// variables its SDKs read for the base URL and key (its Judge's DriverEnv).
const (
	EnvTask     = "TOOLWIRE_TASK"
	EnvScenario = "TOOLWIRE_SCENARIO"
	EnvDialect  = "TOOLWIRE_DIALECT"
	EnvStream   = "TOOLWIRE_STREAM"
	EnvBreak    = "TOOLWIRE_BREAK" // reference driver only: a deliberate mistake
)

// Task is what a driver is asked to do: declare the tools, send the
// prompt, answer every call with the canned results, and report the final
// text.
type Task struct {
	Scenario   string       `json:"scenario"`
	Dialect    conv.Dialect `json:"dialect"`
	Model      string       `json:"model"`
	Stream     bool         `json:"stream"`
	System     string       `json:"system,omitempty"`
	Prompt     string       `json:"prompt"`
	ToolChoice string       `json:"tool_choice,omitempty"`
	MaxTurns   int          `json:"max_turns"`
	Tools      []Tool       `json:"tools"`
	// Settings the scenario's features ask of the driver (see Settings).
	Thinking        *Thinking `json:"thinking,omitempty"`
	MaxOutputTokens int       `json:"max_output_tokens,omitempty"`
	ItemReferences  bool      `json:"item_references,omitempty"`
	Output          *Output   `json:"output,omitempty"`
	// Env carries the contract's environment for drivers reached over
	// HTTP (--driver-url), which cannot see the harness's variables.
	Env map[string]string `json:"env,omitempty"`
}

// Thinking asks for Anthropic extended thinking with this budget: the
// driver passes every thinking block back unchanged, signature included.
type Thinking struct {
	BudgetTokens int `json:"budget_tokens"`
}

// Output asks for a structured final answer: the driver sends Schema as
// the API's structured-output demand on its requests (under Name where
// the API names one, strict where it has the switch), so the model's
// final answer is a JSON value valid against it, which the driver
// reports as the final text.
type Output struct {
	Name   string         `json:"name"`
	Schema map[string]any `json:"schema"`
}

// Settings a feature asks of the driver, set on every task of a scenario
// that has the feature. A driver that does not declare the feature never
// runs such a scenario.
const (
	// FeatureThinking: enable extended thinking (Anthropic) with
	// ThinkingBudget tokens.
	FeatureThinking = "thinking"
	ThinkingBudget  = 1024
	// FeatureTruncation: send TruncationLimit as the request's output
	// token limit (max_tokens, max_completion_tokens, max_output_tokens,
	// generationConfig.maxOutputTokens); a turn cut by it is asked again
	// with a larger limit, and a cut call is never run.
	FeatureTruncation = "truncation"
	TruncationLimit   = 32
	// FeatureItemReferences: on the Responses API, continue by
	// item_reference to the items the API stored (store left true)
	// instead of replaying them.
	FeatureItemReferences = "item-references"
	// FeatureStructuredOutput: the scenario's output (the task's
	// Output) is sent as the API's structured-output demand.
	FeatureStructuredOutput = scenario.FeatureStructuredOutput
)

// Tool is one declared function with its canned results.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty"`
	Strict      bool           `json:"strict,omitempty"`
	Results     []Result       `json:"results,omitempty"`
}

// Result is chosen for a call when When is a subset of its arguments.
type Result struct {
	When   map[string]any `json:"when,omitempty"`
	Result CallToolResult `json:"result"`
}

// CallToolResult is the MCP tools/call result.
type CallToolResult struct {
	Content           []Content      `json:"content"`
	StructuredContent map[string]any `json:"structuredContent,omitempty"`
	IsError           bool           `json:"isError,omitempty"`
}

// Content is one MCP content item: text, image, audio or an embedded
// resource.
type Content struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	Data     string    `json:"data,omitempty"` // base64 (image, audio)
	MimeType string    `json:"mimeType,omitempty"`
	Resource *Resource `json:"resource,omitempty"`
}

// Resource is an embedded MCP resource (text or base64 blob).
type Resource struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
}

// Reply is the last line a driver prints on stdout (and the body a
// --driver-url server answers).
type Reply struct {
	FinalText string `json:"final_text"`
	Error     string `json:"error,omitempty"`
}

// FromScenario builds the task a driver runs for one scenario, dialect and
// stream mode, under the scenario's model for the dialect or else
// defaultModel.
func FromScenario(sc *scenario.Scenario, d conv.Dialect, stream bool, defaultModel string) (*Task, error) {
	t := &Task{Scenario: sc.Name, Dialect: d, Stream: stream, System: sc.System, Prompt: sc.Prompt,
		ToolChoice: sc.ToolChoice, MaxTurns: sc.MaxTurns}
	t.Model = sc.Models[d]
	if t.Model == "" {
		t.Model = defaultModel
	}
	if t.Prompt == "" {
		t.Prompt = "Use the tools to answer."
	}
	if t.MaxTurns <= 0 {
		t.MaxTurns = max(len(sc.Turns)+2, 4)
	}
	for _, f := range sc.Features {
		switch f {
		case FeatureThinking:
			t.Thinking = &Thinking{BudgetTokens: ThinkingBudget}
		case FeatureTruncation:
			t.MaxOutputTokens = TruncationLimit
		case FeatureItemReferences:
			t.ItemReferences = true
		}
	}
	if sc.Output != nil {
		t.Output = &Output{Name: sc.Output.Name, Schema: sc.Output.Schema}
	}
	for _, st := range sc.Tools {
		tool := Tool{Name: st.Name, Description: st.Description, Parameters: st.Parameters, Strict: st.Strict}
		if tool.Parameters == nil {
			tool.Parameters = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		for i, r := range st.Results {
			res, err := ParseResult(r.Result)
			if err != nil {
				return nil, fmt.Errorf("scenario %s tool %s result %d: %w", sc.Name, st.Name, i, err)
			}
			tool.Results = append(tool.Results, Result{When: r.When, Result: res})
		}
		t.Tools = append(t.Tools, tool)
	}
	return t, nil
}

// ParseResult converts a decoded YAML/JSON object into a CallToolResult,
// rejecting unknown content types so a fixture typo is caught early.
func ParseResult(m map[string]any) (CallToolResult, error) {
	var out CallToolResult
	b, err := json.Marshal(m)
	if err != nil {
		return out, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return out, err
	}
	for _, c := range out.Content {
		switch c.Type {
		case "text", "image", "audio", "resource":
		default:
			return out, fmt.Errorf("unknown content type %q", c.Type)
		}
	}
	return out, nil
}

// Tool finds a declared tool.
func (t *Task) Tool(name string) *Tool {
	for i := range t.Tools {
		if t.Tools[i].Name == name {
			return &t.Tools[i]
		}
	}
	return nil
}

// Outcome is what a tool call produces under the contract.
type Outcome struct {
	Result CallToolResult
	// Canned is true when Result is one of the task's own results; false
	// when the contract made up an error (undeclared tool, arguments no
	// result matches, arguments that are not an object), whose wording is
	// the driver's to choose.
	Canned bool
}

// Answer picks the result for a call: the first entry whose When is a
// subset of the arguments; an undeclared tool or a call no entry matches
// gets an error result, as a tool runtime would produce.
func (t *Task) Answer(name string, args map[string]any) Outcome {
	tool := t.Tool(name)
	if tool == nil {
		return Outcome{Result: ErrorResult(fmt.Sprintf("unknown tool %q", name))}
	}
	for _, r := range tool.Results {
		if Subset(r.When, args) {
			return Outcome{Result: r.Result, Canned: true}
		}
	}
	if len(tool.Results) == 0 {
		return Outcome{Result: CallToolResult{Content: []Content{{Type: "text", Text: "ok"}}}, Canned: true}
	}
	return Outcome{Result: ErrorResult(fmt.Sprintf("tool %q has no result for these arguments", name))}
}

// AnswerRaw is Answer for arguments still in wire form (a JSON string, as
// OpenAI sends them): arguments that do not parse as an object get an
// error result.
func (t *Task) AnswerRaw(name, rawArgs string) (Outcome, map[string]any) {
	args, ok := ParseArguments(rawArgs)
	if !ok {
		return Outcome{Result: ErrorResult("arguments are not a JSON object")}, nil
	}
	return t.Answer(name, args), args
}

// ParseArguments decodes wire arguments; ok is false when they are not a
// JSON object (empty means no arguments).
func ParseArguments(raw string) (map[string]any, bool) {
	args := map[string]any{}
	if strings.TrimSpace(raw) == "" {
		return args, true
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil || args == nil {
		return nil, false
	}
	return args, true
}

// ErrorResult is an MCP tool error.
func ErrorResult(msg string) CallToolResult {
	return CallToolResult{Content: []Content{{Type: "text", Text: msg}}, IsError: true}
}

// Subset reports whether every key of when has an equal value in args,
// comparing JSON values (numbers as float64) so YAML ints match JSON
// numbers.
func Subset(when, args map[string]any) bool {
	for k, v := range when {
		a, ok := args[k]
		if !ok || !JSONEqual(v, a) {
			return false
		}
	}
	return true
}

// JSONEqual compares two values after a JSON round trip.
func JSONEqual(a, b any) bool {
	return reflect.DeepEqual(Normalize(a), Normalize(b))
}

// Normalize round-trips a value through JSON.
func Normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// Text joins the text items of a result (resource texts included).
func (r CallToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			parts = append(parts, c.Text)
		case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
			parts = append(parts, c.Resource.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Media lists the binary items (images, blob resources) of a result.
func (r CallToolResult) Media() []Media {
	var out []Media
	for _, c := range r.Content {
		switch {
		case c.Type == "image" && c.Data != "":
			out = append(out, Media{MimeType: c.MimeType, Data: c.Data})
		case c.Type == "resource" && c.Resource != nil && c.Resource.Blob != "":
			out = append(out, Media{MimeType: c.Resource.MimeType, Data: c.Resource.Blob, URI: c.Resource.URI})
		}
	}
	return out
}

// Media is one binary item of a result.
type Media struct {
	MimeType string
	Data     string // base64
	URI      string
}

// IsImage reports an image MIME type.
func (m Media) IsImage() bool { return strings.HasPrefix(m.MimeType, "image/") }
