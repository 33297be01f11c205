package anthropic

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/wire"
)

// modelInfo is the Models API object (anthropic-sdk-go ModelInfo), in its
// field order.
type modelInfo struct {
	Type           string            `json:"type"`
	ID             string            `json:"id"`
	DisplayName    string            `json:"display_name"`
	CreatedAt      string            `json:"created_at"`
	Capabilities   modelCapabilities `json:"capabilities"`
	Lifecycle      string            `json:"lifecycle"`
	Line           string            `json:"line"`
	MaxInputTokens int64             `json:"max_input_tokens"`
	MaxTokens      int64             `json:"max_tokens"`
	DeprecatedAt   *string           `json:"deprecated_at"`
	RetiresAt      *string           `json:"retires_at"`
}

type support struct {
	Supported bool `json:"supported"`
}

type modelCapabilities struct {
	Batch             support `json:"batch"`
	Citations         support `json:"citations"`
	CodeExecution     support `json:"code_execution"`
	ContextManagement struct {
		ClearThinking20251015 support `json:"clear_thinking_20251015"`
		ClearToolUses20250919 support `json:"clear_tool_uses_20250919"`
		Compact20260112       support `json:"compact_20260112"`
		Supported             bool    `json:"supported"`
	} `json:"context_management"`
	Effort struct {
		High      support `json:"high"`
		Low       support `json:"low"`
		Max       support `json:"max"`
		Medium    support `json:"medium"`
		Supported bool    `json:"supported"`
		Xhigh     support `json:"xhigh"`
	} `json:"effort"`
	ImageInput  support `json:"image_input"`
	PDFInput    support `json:"pdf_input"`
	ServerTools struct {
		CodeExecution support `json:"code_execution"`
		Supported     bool    `json:"supported"`
		WebSearch     support `json:"web_search"`
	} `json:"server_tools"`
	StructuredOutputs support `json:"structured_outputs"`
	Thinking          struct {
		Supported bool `json:"supported"`
		Types     struct {
			Adaptive     support `json:"adaptive"`
			BetweenTools support `json:"between_tools"`
			Disabled     support `json:"disabled"`
			Enabled      support `json:"enabled"`
		} `json:"types"`
	} `json:"thinking"`
}

// knownModels are the models the mock describes (the ids GET /v1/models
// lists): every Model constant of anthropic-sdk-go v2.15.0 (message.go;
// TestKnownModelsCoverSDK keeps the two in step) and older ids still
// served. Limits and dates are the published ones where known; for the
// 5-series ids, which the SDK names without a launch date, created is the
// SDK release that first listed them and max_tokens that of their line
// [I]. retires is the end-of-life the SDK's deprecation comment gives.
var knownModels = []struct {
	id, name, line, created string
	maxTokens               int64
	retires                 string
}{
	{"claude-fable-5-2", "Claude Fable 5.2", "fable", "2026-10-21T00:00:00Z", 128000, ""},
	{"claude-mythos-5-2", "Claude Mythos 5.2", "mythos", "2026-10-21T00:00:00Z", 128000, ""},
	{"claude-haiku-5-5", "Claude Haiku 5.5", "haiku", "2026-10-21T00:00:00Z", 64000, ""},
	{"claude-sonnet-5-5", "Claude Sonnet 5.5", "sonnet", "2026-10-21T00:00:00Z", 64000, ""},
	{"claude-fable-5-1", "Claude Fable 5.1", "fable", "2026-09-15T00:00:00Z", 128000, ""},
	{"claude-opus-5-5", "Claude Opus 5.5", "opus", "2026-10-21T00:00:00Z", 128000, ""},
	{"claude-mythos-5-1", "Claude Mythos 5.1", "mythos", "2026-09-15T00:00:00Z", 128000, ""},
	{"claude-sonnet-5", "Claude Sonnet 5", "sonnet", "2026-07-01T00:00:00Z", 64000, ""},
	{"claude-fable-5", "Claude Fable 5", "fable", "2026-07-01T00:00:00Z", 128000, ""},
	{"claude-mythos-5", "Claude Mythos 5", "mythos", "2026-07-01T00:00:00Z", 128000, ""},
	{"claude-opus-5", "Claude Opus 5", "opus", "2026-07-01T00:00:00Z", 128000, ""},
	{"claude-opus-4-8", "Claude Opus 4.8", "opus", "2026-06-01T00:00:00Z", 128000, ""},
	{"claude-opus-4-7", "Claude Opus 4.7", "opus", "2026-04-16T00:00:00Z", 128000, ""},
	{"claude-mythos-preview", "Claude Mythos Preview", "mythos", "2026-04-07T00:00:00Z", 128000, "2026-06-30T00:00:00Z"},
	{"claude-opus-4-6", "Claude Opus 4.6", "opus", "2026-02-05T00:00:00Z", 128000, ""},
	{"claude-sonnet-4-6", "Claude Sonnet 4.6", "sonnet", "2026-02-17T00:00:00Z", 64000, ""},
	{"claude-haiku-4-5", "Claude Haiku 4.5", "haiku", "2025-10-15T00:00:00Z", 64000, ""},
	{"claude-opus-4-5", "Claude Opus 4.5", "opus", "2025-11-24T00:00:00Z", 64000, "2027-01-22T00:00:00Z"},
	{"claude-sonnet-4-5", "Claude Sonnet 4.5", "sonnet", "2025-09-29T00:00:00Z", 64000, "2026-11-30T00:00:00Z"},
	{"claude-opus-4-1", "Claude Opus 4.1", "opus", "2025-08-05T00:00:00Z", 32000, ""},
}

// beforeAdaptive are the known models without adaptive thinking.
var beforeAdaptive = []string{"claude-haiku-4-5", "claude-sonnet-4-5", "claude-opus-4-5", "claude-opus-4-1"}

// lookupModel finds the model an id names: the id itself, or its dated
// snapshot (claude-haiku-4-5-20251001). An exact match wins, so
// claude-sonnet-5-5 is not read as a snapshot of claude-sonnet-5.
func lookupModel(id string) (int, bool) {
	for i, m := range knownModels {
		if id == m.id {
			return i, true
		}
	}
	for i, m := range knownModels {
		if date, ok := strings.CutPrefix(id, m.id+"-"); ok && len(date) == 8 && strings.Trim(date, "0123456789") == "" {
			return i, true
		}
	}
	return 0, false
}

// GetModel answers GET /v1/models/{id} with the model object. It is not a
// route of its own: OpenAI serves the same path, and the server picks the
// dialect by the anthropic-version header. A dated id (claude-haiku-4-5-
// 20251001) names its model.
func (d *Dialect) GetModel(w http.ResponseWriter, r *http.Request) {
	if _, aerr := d.Key(r); aerr != nil {
		d.WriteError(w, aerr)
		return
	}
	id := r.PathValue("id")
	if id == "" {
		id = r.PathValue("model")
	}
	if id == "" {
		id = r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	}
	if i, ok := lookupModel(id); ok {
		m := knownModels[i]
		info := modelInfo{Type: "model", ID: id, DisplayName: m.name, CreatedAt: m.created, Lifecycle: "active", Line: m.line,
			MaxInputTokens: 200000, MaxTokens: m.maxTokens}
		if m.retires != "" {
			info.Lifecycle, info.RetiresAt = "deprecated", &m.retires
		}
		c := &info.Capabilities
		for _, s := range []*support{&c.Batch, &c.Citations, &c.CodeExecution, &c.ImageInput, &c.PDFInput, &c.StructuredOutputs,
			&c.ServerTools.CodeExecution, &c.ServerTools.WebSearch, &c.Thinking.Types.Enabled, &c.Thinking.Types.Disabled,
			&c.ContextManagement.ClearToolUses20250919, &c.ContextManagement.ClearThinking20251015} {
			s.Supported = true
		}
		c.ServerTools.Supported, c.Thinking.Supported, c.ContextManagement.Supported = true, true, true
		// Adaptive thinking and effort came with Opus 4.6: the older
		// models take thinking of type "enabled" only
		// (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html).
		if !slices.Contains(beforeAdaptive, m.id) {
			c.Effort.Supported = true
			c.Effort.Low.Supported, c.Effort.Medium.Supported, c.Effort.High.Supported = true, true, true
			c.Thinking.Types.Adaptive.Supported = true
		}
		w.Header().Set("Request-Id", d.requestIDs.Next("req_011C", 20))
		setRateLimits(w.Header(), time.Now(), requestLimit-1)
		wire.WriteJSON(w, http.StatusOK, info)
		return
	}
	// The Models API's 404 names the model as the Messages API does
	// ("model: <id>"); text [I].
	d.WriteError(w, &wire.APIError{Status: http.StatusNotFound, Type: "not_found_error", Message: "model: " + id})
}
