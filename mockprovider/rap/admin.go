package rap

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Register adds the runtime's routes:
//
//	POST /_toolwire/rap/invoke                 invoke and wait; answers the Outcome
//	POST /_toolwire/rap/cancel                 {group_id, tool_call_id}
//	GET  /_toolwire/rap/calls/{group}/{id}     a call's outcome so far
//	GET  /_toolwire/rap/conversations/{group}  what was delivered into a thread
//	POST /_toolwire/rap/cb/{secret}            tool callbacks (capability URLs)
func (rt *Runtime) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /_toolwire/rap/invoke", rt.handleInvoke)
	mux.HandleFunc("POST /_toolwire/rap/cancel", rt.handleCancel)
	mux.HandleFunc("GET /_toolwire/rap/calls/{group}/{id}", func(w http.ResponseWriter, r *http.Request) {
		o, ok := rt.Snapshot(r.PathValue("group"), r.PathValue("id"))
		if !ok {
			wire.WriteJSON(w, http.StatusNotFound, map[string]any{"error": "unknown tool call"})
			return
		}
		wire.WriteJSON(w, http.StatusOK, o)
	})
	mux.HandleFunc("GET /_toolwire/rap/conversations/{group}", func(w http.ResponseWriter, r *http.Request) {
		c, ok := rt.Conversation(r.PathValue("group"))
		if !ok {
			wire.WriteJSON(w, http.StatusNotFound, map[string]any{"error": "unknown group_id"})
			return
		}
		wire.WriteJSON(w, http.StatusOK, c)
	})
	mux.HandleFunc("POST "+CallbackPrefix+"{secret}", rt.handleCallback)
	// A callback with no secret segment (or extra segments) carries no
	// capability: refused like a wrong secret.
	mux.HandleFunc("POST "+CallbackPrefix, rt.handleCallback)
}

// SessionKey is the admin request's bearer token, or DefaultSession.
func SessionKey(r *http.Request) string {
	if k, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && strings.TrimSpace(k) != "" {
		return strings.TrimSpace(k)
	}
	return DefaultSession
}

func (rt *Runtime) handleInvoke(w http.ResponseWriter, r *http.Request) {
	var req InvokeRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err == nil && !utf8.Valid(body) {
		err = errors.New("the body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err == nil {
		err = dec.Decode(&req)
	}
	if err != nil {
		wire.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": `want {"tool_url", "operation", "arguments", "call_id"?, "group_id"?, "id"?, "user_id"?, "thread_ancestors"?, "expect_error"?, "deadline_ms"?}: ` + err.Error()})
		return
	}
	req.Session = SessionKey(r)
	if len(req.Session) > session.MaxKeyLength {
		wire.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": "session key longer than " + strconv.Itoa(session.MaxKeyLength) + " bytes"})
		return
	}
	req.restricted = true
	if rt.opts.BaseURL == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		req.CallbackBase = scheme + "://" + r.Host
	}
	out, err := rt.Invoke(r.Context(), req)
	var re *RequestError
	var te *ToolsetError
	switch {
	case errors.As(err, &re):
		wire.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": re.Msg})
	case errors.As(err, &te):
		wire.WriteJSON(w, http.StatusBadGateway, map[string]any{"error": te.Error(), "outcome": out})
	case err != nil && out == nil:
		wire.WriteJSON(w, http.StatusInternalServerError, map[string]any{"error": err.Error()})
	default:
		// A cancelled admin request still reports what arrived so far.
		wire.WriteJSON(w, http.StatusOK, out)
	}
}

func (rt *Runtime) handleCancel(w http.ResponseWriter, r *http.Request) {
	var req struct {
		GroupID    string `json:"group_id"`
		ToolCallID string `json:"tool_call_id"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&req); err != nil || req.GroupID == "" || req.ToolCallID == "" {
		wire.WriteJSON(w, http.StatusBadRequest, map[string]any{"error": `want {"group_id", "tool_call_id"}`})
		return
	}
	if err := rt.Cancel(r.Context(), req.GroupID, req.ToolCallID); err != nil {
		wire.WriteJSON(w, http.StatusNotFound, map[string]any{"error": err.Error()})
		return
	}
	o, _ := rt.Snapshot(req.GroupID, req.ToolCallID)
	wire.WriteJSON(w, http.StatusOK, o)
}
