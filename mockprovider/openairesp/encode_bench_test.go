package openairesp

import (
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// The Response object is written by hand (render.go). These benchmarks
// hold it to the rule that a hand-written encoder stays only while it is
// at least twice as fast as the library encoding the same body from typed
// structs (responseJSON below, field for field the same object).

type responseJSON struct {
	ID                 string           `json:"id"`
	Object             string           `json:"object"`
	CreatedAt          int64            `json:"created_at"`
	Status             string           `json:"status"`
	Background         bool             `json:"background"`
	CompletedAt        int64            `json:"completed_at"`
	Error              jsontext.Value   `json:"error"`
	FrequencyPenalty   int              `json:"frequency_penalty"`
	IncompleteDetails  jsontext.Value   `json:"incomplete_details"`
	Instructions       jsontext.Value   `json:"instructions"`
	MaxOutputTokens    jsontext.Value   `json:"max_output_tokens"`
	MaxToolCalls       jsontext.Value   `json:"max_tool_calls"`
	Model              string           `json:"model"`
	Moderation         jsontext.Value   `json:"moderation"`
	Output             []itemJSON       `json:"output"`
	ParallelToolCalls  bool             `json:"parallel_tool_calls"`
	PresencePenalty    int              `json:"presence_penalty"`
	PreviousResponseID *string          `json:"previous_response_id"`
	PromptCacheKey     jsontext.Value   `json:"prompt_cache_key"`
	PromptCacheRet     jsontext.Value   `json:"prompt_cache_retention"`
	Reasoning          jsontext.Value   `json:"reasoning"`
	SafetyIdentifier   jsontext.Value   `json:"safety_identifier"`
	ServiceTier        string           `json:"service_tier"`
	Store              bool             `json:"store"`
	Temperature        int              `json:"temperature"`
	Text               jsontext.Value   `json:"text"`
	ToolChoice         jsontext.Value   `json:"tool_choice"`
	Tools              []jsontext.Value `json:"tools"`
	TopLogprobs        int              `json:"top_logprobs"`
	TopP               int              `json:"top_p"`
	Truncation         string           `json:"truncation"`
	Usage              usageJSON        `json:"usage"`
	User               jsontext.Value   `json:"user"`
	Metadata           jsontext.Value   `json:"metadata"`
}

type itemJSON struct {
	ID        string     `json:"id"`
	Type      string     `json:"type"`
	Status    string     `json:"status,omitempty"`
	Content   []partJSON `json:"content,omitempty"`
	Phase     string     `json:"phase,omitempty"`
	Role      string     `json:"role,omitempty"`
	Arguments *string    `json:"arguments,omitempty"`
	CallID    string     `json:"call_id,omitempty"`
	Name      string     `json:"name,omitempty"`
	Summary   []partJSON `json:"summary,omitempty"`
}

type partJSON struct {
	Type        string   `json:"type"`
	Annotations []string `json:"annotations"`
	Logprobs    []string `json:"logprobs"`
	Text        string   `json:"text"`
}

type usageJSON struct {
	InputTokens  int `json:"input_tokens"`
	InputDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens  int `json:"output_tokens"`
	OutputDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

func benchRequest(b *testing.B) (*Request, []planned) {
	body := []byte(`{"model":"gpt-4.1","instructions":"Be brief.","input":[{"role":"user","content":"What's the weather in Tokyo and Paris?"}],"tools":[` + weatherTool + `],"metadata":{"run":"bench"}}`)
	req, aerr := decodeRequest(&dialect.Exchange{}, body)
	if aerr != nil {
		b.Fatal(aerr)
	}
	items := []planned{
		{kind: "message", id: "msg_0123456789abcdef0123456789abcdef0123456789abcdef", text: "Let me look that up for both cities <now>.", phase: "commentary"},
		{kind: "function_call", id: "fc_0123456789abcdef0123456789abcdef0123456789abcdef", callID: "call_0123456789abcdef01234567", name: "get_weather", args: `{"location":"Tokyo"}`},
		{kind: "function_call", id: "fc_1123456789abcdef0123456789abcdef0123456789abcdef", callID: "call_1123456789abcdef01234567", name: "get_weather", args: `{"location":"Paris"}`},
	}
	return req, items
}

func BenchmarkResponseHandWritten(b *testing.B) {
	req, items := benchRequest(b)
	u := usageFor(req, items)
	b.ReportAllocs()
	for b.Loop() {
		_ = appendResponse(make([]byte, 0, 4096), req, "resp_x", 1700000000, items, form{status: "completed", usage: &u, spans: make([]span, len(items))})
	}
}

func BenchmarkResponseLibrary(b *testing.B) {
	req, items := benchRequest(b)
	u := usageFor(req, items)
	b.ReportAllocs()
	for b.Loop() {
		r := responseJSON{ID: "resp_x", Object: "response", CreatedAt: 1700000000, Status: "completed", CompletedAt: 1700000000,
			Error: null, IncompleteDetails: null, Instructions: req.Instructions, MaxOutputTokens: null, MaxToolCalls: null, Model: req.Model,
			Moderation: null, ParallelToolCalls: true, PromptCacheKey: null, PromptCacheRet: null, Reasoning: jsontext.Value(`{"effort":null,"summary":null}`),
			SafetyIdentifier: null, ServiceTier: "default", Store: true, Temperature: 1, Text: jsontext.Value(`{"format":{"type":"text"},"verbosity":"medium"}`),
			ToolChoice: jsontext.Value(`"auto"`), Tools: req.ToolsRaw, TopP: 1, Truncation: "disabled", User: null, Metadata: req.Metadata}
		for _, it := range items {
			j := itemJSON{ID: it.id, Type: it.kind, Status: "completed"}
			switch it.kind {
			case "message":
				j.Content, j.Phase, j.Role = []partJSON{{Type: "output_text", Annotations: []string{}, Logprobs: []string{}, Text: it.text}}, it.phase, "assistant"
			case "function_call":
				args := it.args
				j.Arguments, j.CallID, j.Name = &args, it.callID, it.name
			}
			r.Output = append(r.Output, j)
		}
		r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.TotalTokens = u.input, u.output, u.input+u.output
		if _, err := json.Marshal(&r); err != nil {
			b.Fatal(err)
		}
	}
}

var null = jsontext.Value("null")
