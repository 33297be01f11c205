package openairesp

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// The Response object, its output items and the stream events are typed
// structs, members in the API's order, marshalled by the library. The
// request's fragments echoed as sent (instructions, tools, reasoning,
// text, metadata, tool_choice, max_output_tokens) are written compact
// with their string escapes kept.

// marshal encodes an answer's value: a scripted string that is not valid
// UTF-8 is written with replacement characters, as a client's fragments'
// escapes are kept. Names are not checked for duplicates: the structs'
// are distinct, and the fragments echoed were decoded with that check.
func marshal(v any) []byte {
	b, err := json.Marshal(v, jsontext.AllowInvalidUTF8(true), jsontext.PreserveRawStrings(true), jsontext.AllowDuplicateNames(true))
	if err != nil {
		return []byte("null")
	}
	return b
}

// usage is the token accounting of a completed response.
type usage struct{ input, cached, output, reasoning int }

// form says which rendering of a Response object is wanted.
type form struct {
	// status "completed" (or "incomplete": the token limit cut it) gives
	// the final form with its output items;
	// "in_progress" the form of response.created / response.in_progress;
	// "failed" the one of response.failed.
	status string
	// usage nil renders "usage":null, errJSON nil "error":null.
	usage   *usage
	errJSON []byte
	// tools are the request's tools as echoed (toolsEcho), when already
	// worked out: a stream renders the object more than once. nil works
	// them out.
	tools []any
}

// responseObject is the Response object.
type responseObject struct {
	ID                   string           `json:"id"`
	Object               string           `json:"object"`
	CreatedAt            int64            `json:"created_at"`
	Status               string           `json:"status"`
	Background           bool             `json:"background"`
	CompletedAt          *int64           `json:"completed_at"`
	Error                jsontext.Value   `json:"error"`
	FrequencyPenalty     int              `json:"frequency_penalty"`
	IncompleteDetails    *incomplete      `json:"incomplete_details"`
	Instructions         jsontext.Value   `json:"instructions"`
	MaxOutputTokens      jsontext.Value   `json:"max_output_tokens"`
	MaxToolCalls         *int             `json:"max_tool_calls"`
	Model                string           `json:"model"`
	Moderation           *string          `json:"moderation"`
	Output               []jsontext.Value `json:"output"`
	ParallelToolCalls    bool             `json:"parallel_tool_calls"`
	PresencePenalty      int              `json:"presence_penalty"`
	PreviousResponseID   *string          `json:"previous_response_id"`
	PromptCacheKey       *string          `json:"prompt_cache_key"`
	PromptCacheRetention *string          `json:"prompt_cache_retention"`
	Reasoning            jsontext.Value   `json:"reasoning"`
	SafetyIdentifier     *string          `json:"safety_identifier"`
	ServiceTier          string           `json:"service_tier"`
	Store                bool             `json:"store"`
	Temperature          int              `json:"temperature"`
	Text                 jsontext.Value   `json:"text"`
	ToolChoice           jsontext.Value   `json:"tool_choice"`
	Tools                []any            `json:"tools"`
	TopLogprobs          int              `json:"top_logprobs"`
	TopP                 int              `json:"top_p"`
	Truncation           string           `json:"truncation"`
	Usage                *usageObject     `json:"usage"`
	User                 *string          `json:"user"`
	Metadata             jsontext.Value   `json:"metadata"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

type usageObject struct {
	InputTokens         int                 `json:"input_tokens"`
	InputTokensDetails  inputTokensDetails  `json:"input_tokens_details"`
	OutputTokens        int                 `json:"output_tokens"`
	OutputTokensDetails outputTokensDetails `json:"output_tokens_details"`
	TotalTokens         int                 `json:"total_tokens"`
}

type inputTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type outputTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// functionTool is a function tool as the API echoes it: strict resolved
// (as sent, else on when the schema allows it).
type functionTool struct {
	Type        string         `json:"type"`
	Description *string        `json:"description"`
	Name        string         `json:"name"`
	Parameters  jsontext.Value `json:"parameters"`
	Strict      bool           `json:"strict"`
}

// Defaults of the members a request leaves out.
var (
	reasoningEffortMedium = jsontext.Value(`{"effort":"medium","summary":null}`)
	reasoningEffortNone   = jsontext.Value(`{"effort":null,"summary":null}`)
	textDefault           = jsontext.Value(`{"format":{"type":"text"},"verbosity":"medium"}`)
	toolChoiceAuto        = jsontext.Value(`"auto"`)
	metadataEmpty         = jsontext.Value(`{}`)
)

// responseOf is the Response object in the given form; output holds the
// encoded output items of the completed forms.
func responseOf(req *Request, id string, created int64, output []jsontext.Value, f form) *responseObject {
	r := &responseObject{
		ID: id, Object: "response", CreatedAt: created, Status: f.status,
		Error: f.errJSON, Instructions: req.Instructions, MaxOutputTokens: req.MaxOutputTokens, Model: req.Model,
		Output:            []jsontext.Value{},
		ParallelToolCalls: req.ParallelToolCalls == nil || *req.ParallelToolCalls,
		ServiceTier:       "default", Store: req.Store == nil || *req.Store, Temperature: 1,
		Text: textDefault, ToolChoice: toolChoiceAuto, Tools: f.tools,
		TopP: 1, Truncation: "disabled", Usage: usageObjectOf(f.usage), Metadata: metadataEmpty,
	}
	if r.Tools == nil {
		r.Tools = toolsEcho(nil, req)
	}
	switch f.status {
	case "completed":
		r.CompletedAt = &created
	case "incomplete":
		r.IncompleteDetails = &incomplete{Reason: "max_output_tokens"}
	}
	if f.status == "completed" || f.status == "incomplete" {
		r.Output = output
	}
	if req.PreviousResponseID != nil && *req.PreviousResponseID != "" {
		r.PreviousResponseID = req.PreviousResponseID
	}
	switch {
	case len(req.Reasoning) > 0 && req.Reasoning.Kind() == '{':
		r.Reasoning = req.Reasoning
	case model.IsReasoningModel(req.Model):
		r.Reasoning = reasoningEffortMedium
	default:
		r.Reasoning = reasoningEffortNone
	}
	if len(req.Text) > 0 && req.Text.Kind() == '{' {
		r.Text = req.Text
	}
	if len(req.ToolChoice) > 0 && req.ToolChoice.Kind() != 'n' {
		r.ToolChoice = req.ToolChoice
	}
	if len(req.Metadata) > 0 && req.Metadata.Kind() == '{' {
		r.Metadata = req.Metadata
	}
	return r
}

// toolsEcho is the tools as the API echoes them: function tools
// normalized, other tools as sent. Session s (nil: none) keeps what it
// learns of each schema's strict compatibility.
func toolsEcho(s *session.Session, req *Request) []any {
	out := []any{}
	for i, t := range req.Tools {
		if t.Type != "function" {
			if i < len(req.ToolsRaw) {
				out = append(out, req.ToolsRaw[i])
			}
			continue
		}
		var strict bool
		if t.Strict != nil {
			strict = *t.Strict
		} else {
			strict = strictCompatibleIn(s, t.Parameters)
		}
		out = append(out, functionTool{Type: "function", Description: t.Description, Name: str(t.Name), Parameters: t.Parameters, Strict: strict})
	}
	return out
}

func usageObjectOf(u *usage) *usageObject {
	if u == nil {
		return nil
	}
	return &usageObject{InputTokens: u.input, InputTokensDetails: inputTokensDetails{CachedTokens: u.cached},
		OutputTokens: u.output, OutputTokensDetails: outputTokensDetails{ReasoningTokens: u.reasoning}, TotalTokens: u.input + u.output}
}

// Output items.
type (
	reasoningItem struct {
		ID               string        `json:"id"`
		Type             string        `json:"type"`
		EncryptedContent string        `json:"encrypted_content,omitempty"`
		Summary          []summaryPart `json:"summary"`
	}
	messageItem struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Status  string `json:"status"`
		Content []any  `json:"content"`
		Phase   string `json:"phase"`
		Role    string `json:"role"`
	}
	functionCallItem struct {
		ID        string `json:"id"`
		Type      string `json:"type"`
		Status    string `json:"status"`
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
	}
	summaryPart struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	outputText struct {
		Type        string     `json:"type"`
		Annotations []struct{} `json:"annotations"`
		Logprobs    []struct{} `json:"logprobs"`
		Text        string     `json:"text"`
	}
	refusalPart struct {
		Type    string `json:"type"`
		Refusal string `json:"refusal"`
	}
)

// outputItem is one output item, complete (done) or as announced by
// response.output_item.added.
func outputItem(p *planned, done bool) any {
	status := "completed"
	switch {
	case !done:
		status = "in_progress"
	case p.incomplete:
		status = "incomplete"
	}
	switch p.kind {
	case "reasoning":
		it := reasoningItem{ID: p.id, Type: "reasoning", EncryptedContent: p.encrypted, Summary: []summaryPart{}}
		if done && p.summary != "" {
			it.Summary = append(it.Summary, summaryPart{Type: "summary_text", Text: p.summary})
		}
		return it
	case "message":
		it := messageItem{ID: p.id, Type: "message", Status: status, Content: []any{}, Phase: p.phase, Role: "assistant"}
		if done {
			it.Content = append(it.Content, partOf(p, p.text))
		}
		return it
	}
	it := functionCallItem{ID: p.id, Type: "function_call", Status: status, CallID: p.callID, Name: p.name}
	if done {
		it.Arguments = p.args
	}
	return it
}

// partOf is a message's content part holding text (empty while
// streaming).
func partOf(p *planned, text string) any {
	if p.refusal {
		return refusalPart{Type: "refusal", Refusal: text}
	}
	return outputText{Type: "output_text", Annotations: []struct{}{}, Logprobs: []struct{}{}, Text: text}
}
