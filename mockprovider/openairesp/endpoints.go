package openairesp

import (
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// The endpoints beside create that take a request body and go through the
// same validation: counting a request's input tokens, and compacting a
// conversation.
const (
	InputTokensPath = Path + "/input_tokens"
	CompactPath     = Path + "/compact"
)

// endpointOf is the path of the request in flight (Path offline).
func endpointOf(x *dialect.Exchange) string {
	if x == nil || x.R == nil {
		return Path
	}
	switch p := x.R.URL.Path; p {
	case InputTokensPath, CompactPath:
		return p
	}
	return Path
}

// endpointBody is a fresh value of the wire type an endpoint's body is
// judged by, nil for create (ResponseNewParams, decoded directly).
func endpointBody(endpoint string) any {
	switch endpoint {
	case InputTokensPath:
		return &InputTokenCountParams{}
	case CompactPath:
		return &ResponseCompactParams{}
	}
	return nil
}

// compactionPayload is what a compaction item's encrypted content holds:
// the conversation it stands for, and the ids of the user messages the
// compaction answer repeats before it (a request passes those back too,
// and they are already in Items).
type compactionPayload struct {
	Drop  []string         `json:"drop"`
	Items []jsontext.Value `json:"items"`
}

// compact answers POST /v1/responses/compact with a response.compaction
// object: every user message of the conversation, then one compaction item
// that a later request passes back in input instead of the history.
func (d *Dialect) compact(x *dialect.Exchange, req *Request) {
	ids := x.IDs()
	items := req.Effective()
	var output []any
	payload := compactionPayload{Items: make([]jsontext.Value, 0, len(items))}
	for _, it := range items {
		payload.Items = append(payload.Items, it.Raw)
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		id := ids.Next("msg_", 48)
		payload.Drop = append(payload.Drop, id)
		var message struct {
			Content jsontext.Value `json:"content"`
		}
		_ = json.Unmarshal(it.Raw, &message)
		content := message.Content
		if content.Kind() == '"' {
			var s string
			_ = json.Unmarshal(content, &s)
			type inputText struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			content = marshal([]inputText{{Type: "input_text", Text: s}})
		}
		output = append(output, object{{"id", id}, {"type", "message"}, {"status", "completed"}, {"content", jsontext.Value(content)}, {"role", "user"}})
	}
	plain, err := json.Marshal(payload)
	if err != nil {
		x.JSON(http.StatusInternalServerError, object{{"error", "toolwire: compaction failed"}})
		return
	}
	encrypted := seal(sealedCompactionKind, plain, time.Now().Unix())
	output = append(output, object{{"id", ids.Next("cmp_", 48)}, {"type", "compaction"}, {"encrypted_content", encrypted}})
	u := usage{input: usageFor(req, nil).input, output: max(1, len(encrypted)/64)}
	x.JSON(http.StatusOK, object{{"id", ids.Next("resp_", 48)}, {"object", "response.compaction"}, {"created_at", time.Now().Unix()},
		{"output", output}, {"usage", usageObjectOf(&u)}})
}

// compactionPrefix starts every sealed value (a Fernet token's version
// byte and the first bytes of its timestamp), so most items that cannot
// be the mock's compactions are passed over before decoding.
const compactionPrefix = "gAAAAA"

// expandCompactions replaces each compaction item the mock issued by the
// conversation it stands for, dropping the user messages it repeats.
func expandCompactions(items []*Item) []*Item {
	var out []*Item
	for i, it := range items {
		p, ok := openCompaction(it)
		if !ok {
			if out != nil {
				out = append(out, it)
			}
			continue
		}
		if out == nil {
			out = append(make([]*Item, 0, len(items)+len(p.Items)), items[:i]...)
		}
		kept := out[:0]
		for _, prev := range out {
			if !slices.Contains(p.Drop, prev.ID) {
				kept = append(kept, prev)
			}
		}
		out = kept
		for _, raw := range p.Items {
			if e, ok := storedItem(raw); ok {
				e.Index, e.FromReference = it.Index, true
				out = append(out, &e)
			}
		}
	}
	if out == nil {
		return items
	}
	return out
}

func openCompaction(it *Item) (compactionPayload, bool) {
	if it.Type != "compaction" || !strings.HasPrefix(str(it.EncryptedContent), compactionPrefix) {
		return compactionPayload{}, false // every item passes here: nothing allocated
	}
	var p compactionPayload
	plain, ok := unseal(sealedCompactionKind, *it.EncryptedContent)
	if !ok || json.Unmarshal(plain, &p) != nil {
		return compactionPayload{}, false
	}
	return p, true
}
