package openairesp

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// ExtraRoutes serves the stored responses of the caller's session:
// retrieve, delete and list input items. Each key sees only its own
// responses, as each real API key sees only its organisation's.
// Where the server can host sockets, GET /v1/responses is WebSocket mode
// (ws.go).
func (d *Dialect) ExtraRoutes(h dialect.Host) map[string]http.HandlerFunc {
	routes := map[string]http.HandlerFunc{
		"GET " + Path + "/{id}":             d.withStored(h, d.getResponse),
		"DELETE " + Path + "/{id}":          d.withStored(h, d.deleteResponse),
		"GET " + Path + "/{id}/input_items": d.withStored(h, d.listInputItems),
	}
	if sh, ok := h.(dialect.SocketHost); ok {
		routes["GET "+Path] = d.socketRoute(sh)
	}
	return routes
}

// Output items are kept one by one beside the responses, under itemKey,
// so item_reference can find them: the item's bytes when its response was
// stored, nothing (a marker that the mock issued it) when store was false.
func itemKey(id string) string { return itemKeyPrefix + id }

const itemKeyPrefix = "item:"

// itemKeys is the itemKey of each item, one after the other in one
// string (one allocation for all; the caller cuts it).
func itemKeys(items []planned) string {
	n := 0
	for i := range items {
		n += len(itemKeyPrefix) + len(items[i].id)
	}
	var b strings.Builder
	b.Grow(n)
	for i := range items {
		b.WriteString(itemKeyPrefix)
		b.WriteString(items[i].id)
	}
	return b.String()
}

// lookupItem finds an output item the session's responses issued; issued
// reports an item of a store:false response.
func lookupItem(sess *session.Session, id string) (it Item, issued bool) {
	e, ok := storedResponse(sess, itemKey(id))
	if !ok {
		return Item{}, false
	}
	if len(e.rest) == 1 {
		if it, ok := storedItem(e.rest[0]); ok {
			return it, true
		}
	}
	return Item{}, true
}

// notFound is the answer for an unknown, deleted or unstored response id
// ([I]: wording as reproduced by several OpenAI-compatible servers).
func notFound(id string) *wire.APIError {
	return &wire.APIError{Status: http.StatusNotFound, Type: openaiwire.InvalidRequest, Message: fmt.Sprintf("Response with id '%s' not found.", id)}
}

type storedHandler func(w http.ResponseWriter, r *http.Request, sess *session.Session, stored *StoredResponse)

func (d *Dialect) withStored(h dialect.Host, next storedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, aerr := openaiwire.Key(r)
		if aerr != nil {
			h.WriteErrorFor(d.Name(), w, aerr)
			return
		}
		id := r.PathValue("id")
		sess, ok := h.Sessions().Lookup(key)
		if !ok {
			h.WriteErrorFor(d.Name(), w, notFound(id))
			return
		}
		stored, ok := storedResponse(sess, id)
		if !ok || stored.Body == nil {
			h.WriteErrorFor(d.Name(), w, notFound(id))
			return
		}
		next(w, r, sess, stored)
	}
}

func (d *Dialect) getResponse(w http.ResponseWriter, _ *http.Request, _ *session.Session, stored *StoredResponse) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(stored.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(stored.Body)
}

// deleteResponse forgets a response. The session store has no delete, so
// a tombstone (no body) takes its place: lookups treat it as absent.
func (d *Dialect) deleteResponse(w http.ResponseWriter, _ *http.Request, sess *session.Session, stored *StoredResponse) {
	storedResponses.Delete(sess, stored.ID)
	wire.WriteJSON(w, http.StatusOK, object{{"id", stored.ID}, {"object", "response"}, {"deleted", true}})
}

// listInputItems pages through the items that went into a response (the
// effective conversation before its output), newest first unless
// order=asc, with limit (1–100, default 20) and after=<item id>.
func (d *Dialect) listInputItems(w http.ResponseWriter, r *http.Request, _ *session.Session, stored *StoredResponse) {
	var body struct {
		Output []json.RawMessage `json:"output"`
	}
	_ = json.Unmarshal(stored.Body, &body)
	all := stored.Items()
	n := len(all) - len(body.Output)
	if n < 0 {
		n = 0
	}
	items := make([]json.RawMessage, 0, n)
	for i, raw := range all[:n] {
		items = append(items, listedItem(stored.ID, i, raw))
	}
	q := r.URL.Query()
	if q.Get("order") != "asc" {
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
	}
	if after := q.Get("after"); after != "" {
		for i, raw := range items {
			if itemID(raw) == after {
				items = items[i+1:]
				break
			}
		}
	}
	limit := 20
	if v, err := strconv.Atoi(q.Get("limit")); err == nil && v >= 1 && v <= 100 {
		limit = v
	}
	more := len(items) > limit
	if more {
		items = items[:limit]
	}
	var first, last any
	if len(items) > 0 {
		first, last = itemID(items[0]), itemID(items[len(items)-1])
	}
	wire.WriteJSON(w, http.StatusOK, object{{"object", "list"}, {"data", items}, {"first_id", first}, {"last_id", last}, {"has_more", more}})
}

func itemID(raw json.RawMessage) string {
	var it struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &it)
	return it.ID
}

// listedItem gives a stored input item the shape the list endpoint
// returns: an id (derived from the response id and position, so it is
// stable), an explicit type, and message content as a parts array.
func listedItem(respID string, index int, raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	typ, _ := m["type"].(string)
	if typ == "" {
		typ = "message"
		m["type"] = typ
	}
	if s, ok := m["content"].(string); ok && typ == "message" {
		partType := "input_text"
		if m["role"] == "assistant" {
			partType = "output_text"
		}
		m["content"] = []any{map[string]any{"type": partType, "text": s}}
	}
	if id, _ := m["id"].(string); id == "" {
		prefix := map[string]string{"message": "msg_", "function_call": "fc_", "function_call_output": "fco_", "reasoning": "rs_"}[typ]
		if prefix == "" {
			prefix = "item_"
		}
		sum := sha256.Sum256([]byte(respID + "/" + strconv.Itoa(index)))
		m["id"] = prefix + fmt.Sprintf("%x", sum[:24])
	}
	if _, ok := m["status"]; !ok && typ != "reasoning" {
		m["status"] = "completed"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}
