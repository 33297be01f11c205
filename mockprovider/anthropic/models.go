package anthropic

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/toolwire/toolwire/mockprovider/models"
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

// GetModel answers GET /v1/models/{id} from the built-in catalog.
func (d *Dialect) GetModel(w http.ResponseWriter, r *http.Request) { d.GetModelFrom(nil)(w, r) }

// GetModelFrom answers GET /v1/models/{id} with the model object of a
// catalog model, named as asked (a dated id, claude-haiku-4-5-20251001,
// names its model); an unknown id is the Messages API's 404. It is not a
// route of its own: OpenAI serves the same path, and the server picks the
// dialect by the anthropic-version header.
func (d *Dialect) GetModelFrom(catalog *models.Catalog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
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
		m, ok := catalog.Lookup(models.Anthropic, id)
		if !ok {
			// The Models API's 404 names the model as the Messages API does.
			d.WriteError(w, d.ModelNotFound(nil, id))
			return
		}
		w.Header().Set("Request-Id", d.requestIDs.Next("req_011C", 20))
		setRateLimits(w.Header(), time.Now(), requestLimit-1)
		wire.WriteJSON(w, http.StatusOK, ModelInfo(id, m))
	}
}

// ModelInfo is the Models API object for id, a catalog model's; a fact
// the catalog does not record is reported unsupported.
func ModelInfo(id string, m *models.Model) any {
	name, created := id, "2025-01-01T00:00:00Z"
	if m != nil && m.DisplayName != "" {
		name = m.DisplayName
	}
	if m != nil && m.Created != "" {
		created = m.Created + "T00:00:00Z"
	}
	info := modelInfo{Type: "model", ID: id, DisplayName: name, CreatedAt: created, Lifecycle: "active", Line: modelLine(id),
		MaxInputTokens: 200000, MaxTokens: 64000}
	if m == nil || m.IsWildcard() {
		return info
	}
	if m.Retires != "" {
		retires := m.Retires + "T00:00:00Z"
		info.Lifecycle, info.RetiresAt = "deprecated", &retires
	}
	if m.InputTokenLimit > 0 {
		info.MaxInputTokens = m.InputTokenLimit
	}
	if m.MaxOutputTokens > 0 {
		info.MaxTokens = m.MaxOutputTokens
	}
	c := &info.Capabilities
	for _, s := range []*support{&c.Batch, &c.Citations, &c.CodeExecution, &c.StructuredOutputs,
		&c.ServerTools.CodeExecution, &c.ContextManagement.ClearToolUses20250919, &c.ContextManagement.ClearThinking20251015} {
		s.Supported = true
	}
	c.ServerTools.Supported, c.ContextManagement.Supported = true, true
	c.ImageInput.Supported = !m.RefusesInput("image")
	c.PDFInput.Supported = !m.RefusesInput("file")
	c.ServerTools.WebSearch.Supported = !m.RefusesWebSearch()
	if len(m.Thinking) > 0 {
		c.Thinking.Supported = true
		c.Thinking.Types.Disabled.Supported = true
		c.Thinking.Types.Enabled.Supported = slices.Contains(m.Thinking, "enabled")
		c.Thinking.Types.Adaptive.Supported = slices.Contains(m.Thinking, "adaptive")
	}
	if len(m.Efforts) > 0 {
		c.Effort.Supported = true
		for level, s := range map[string]*support{"low": &c.Effort.Low, "medium": &c.Effort.Medium, "high": &c.Effort.High, "xhigh": &c.Effort.Xhigh, "max": &c.Effort.Max} {
			s.Supported = slices.Contains(m.Efforts, level)
		}
	}
	return info
}

// modelLine is the family an id belongs to (claude-opus-4-7: opus).
func modelLine(id string) string {
	if rest, ok := strings.CutPrefix(id, "claude-"); ok {
		line, _, _ := strings.Cut(rest, "-")
		return line
	}
	return ""
}
