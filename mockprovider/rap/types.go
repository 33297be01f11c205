package rap

import "encoding/json"

// Revision selects which version of the protocol text the runtime holds
// tools to.
type Revision string

const (
	// RevisionJune2026 is the tool-result page of June 2026 that https://infinity.hydro.run/docs/rap/spec/basic/tool-result
	// quotes: callback types tool_result, subscription_event and oauth;
	// display segments text and diff; text required.
	RevisionJune2026 Revision = "2026-06"
	// RevisionHead adds content results (text or content items), image
	// segments, user_choice and view_update.
	RevisionHead Revision = "head"
)

// Revisions lists the accepted --rap-revision values, default first.
var Revisions = []Revision{RevisionJune2026, RevisionHead}

// Invocation is the body the runtime POSTs to a toolset's endpoint
// (https://infinity.hydro.run/docs/rap/spec/basic/tool-invocation). call_id is always sent, as null when absent;
// thread_ancestors and user_id are omitted when empty.
type Invocation struct {
	Operation       string          `json:"operation"`
	Arguments       json.RawMessage `json:"arguments"`
	ID              string          `json:"id"`
	CallID          *string         `json:"call_id"`
	CallbackURL     string          `json:"callback_url"`
	GroupID         string          `json:"group_id"`
	ThreadAncestors []string        `json:"thread_ancestors,omitempty"`
	UserID          string          `json:"user_id,omitempty"`
}

// ToolResult is a delivered tool_result. Synthetic marks one the runtime
// injected itself (failed invocation, deadline, cancellation).
type ToolResult struct {
	Type         string        `json:"type"`
	GroupID      string        `json:"group_id"`
	ID           string        `json:"id"`
	CallID       *string       `json:"call_id,omitempty"`
	Text         string        `json:"text,omitempty"`
	Content      []ContentItem `json:"content,omitempty"`
	DisplayAs    []Segment     `json:"display_as,omitempty"`
	Subscription bool          `json:"subscription,omitempty"`
	Synthetic    bool          `json:"synthetic,omitempty"`
}

// ModelText is what the model receives: content items supersede text,
// with a placeholder for each image.
func (r *ToolResult) ModelText() string {
	if len(r.Content) == 0 {
		return r.Text
	}
	out := ""
	for i, c := range r.Content {
		if i > 0 {
			out += "\n"
		}
		if c.Type == "image" {
			out += "[image " + c.MediaType + "]"
		} else {
			out += c.Text
		}
	}
	return out
}

// ContentItem is one item of a content result (newer revision).
type ContentItem struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Data      string `json:"data,omitempty"`
	MediaType string `json:"mediaType,omitempty"`
}

// Segment is one display_as entry; content stays raw because its shape
// depends on the type.
type Segment struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
}

// SubscriptionEvent is a delivered subscription_event.
type SubscriptionEvent struct {
	Type        string `json:"type"`
	GroupID     string `json:"group_id"`
	ToolCallID  string `json:"tool_call_id"`
	Text        string `json:"text"`
	Associative bool   `json:"associative,omitempty"`
	Final       bool   `json:"final,omitempty"`
}

// OAuthRequest is a received oauth message.
type OAuthRequest struct {
	Type    string  `json:"type"`
	GroupID string  `json:"group_id"`
	ID      string  `json:"id"`
	CallID  *string `json:"call_id,omitempty"`
	AuthURL string  `json:"auth_url"`
}

// UserChoice is a received user_choice message (newer revision). The
// runtime answers it with the default choice.
type UserChoice struct {
	Type        string   `json:"type"`
	GroupID     string   `json:"group_id"`
	ID          string   `json:"id"`
	CallID      *string  `json:"call_id,omitempty"`
	Prompt      string   `json:"prompt"`
	Choices     []string `json:"choices"`
	Default     int      `json:"default"`
	ResponseURL string   `json:"response_url"`
}

// ViewUpdate is a received view_update message (newer revision).
type ViewUpdate struct {
	Type     string          `json:"type"`
	GroupID  string          `json:"group_id"`
	ViewType string          `json:"view_type"`
	Content  json.RawMessage `json:"content"`
}

// CancelRequest is the body of POST {base}/cancel_tool_call.
type CancelRequest struct {
	ThreadID   string `json:"thread_id"`
	ToolCallID string `json:"tool_call_id"`
}
