package anthropic

import (
	"net/http"
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
// lists), with their published limits.
var knownModels = []struct {
	id, name, line, created string
	maxTokens               int64
}{
	{"claude-sonnet-4-5", "Claude Sonnet 4.5", "sonnet", "2025-09-29T00:00:00Z", 64000},
	{"claude-opus-4-7", "Claude Opus 4.7", "opus", "2026-04-16T00:00:00Z", 128000},
	{"claude-haiku-4-5", "Claude Haiku 4.5", "haiku", "2025-10-15T00:00:00Z", 64000},
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
	for _, m := range knownModels {
		if id != m.id && !strings.HasPrefix(id, m.id+"-") {
			continue
		}
		info := modelInfo{Type: "model", ID: id, DisplayName: m.name, CreatedAt: m.created, Lifecycle: "active", Line: m.line,
			MaxInputTokens: 200000, MaxTokens: m.maxTokens}
		c := &info.Capabilities
		for _, s := range []*support{&c.Batch, &c.Citations, &c.CodeExecution, &c.ImageInput, &c.PDFInput, &c.StructuredOutputs,
			&c.ServerTools.CodeExecution, &c.ServerTools.WebSearch, &c.Thinking.Types.Enabled, &c.Thinking.Types.Disabled,
			&c.ContextManagement.ClearToolUses20250919, &c.ContextManagement.ClearThinking20251015} {
			s.Supported = true
		}
		c.ServerTools.Supported, c.Thinking.Supported, c.ContextManagement.Supported = true, true, true
		if m.line == "opus" {
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
