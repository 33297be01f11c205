package mockprovider

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// CheckRequest lints one captured request body offline with the same rules
// the server enforces: it is sent through the handler in-process, in a
// throwaway session, and the journaled violations are returned. model is
// needed for Gemini, whose model is in the URL rather than the body (""
// is the dialect's default).
func CheckRequest(d conv.Dialect, body []byte, model string, opts rules.Options) ([]rules.Violation, *session.Entry, error) {
	opts.Lenient = true // journal everything; never stop at the first
	s := New(Options{Rules: opts})
	const key = "toolwire-check"
	dl, ok := s.Dialect(d)
	if !ok {
		return nil, nil, fmt.Errorf("unknown dialect %q (want one of %v)", d, conv.Dialects)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	dl.SetAuth(h, key)
	req := httptest.NewRequest(http.MethodPost, dl.Endpoint(model, false), bytes.NewReader(body))
	req.Header = h
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	sess, ok := s.Sessions().Lookup(key)
	if !ok {
		return nil, nil, fmt.Errorf("request was not accepted: %d %s", rec.Code, rec.Body.String())
	}
	entries, _ := sess.Journal()
	if len(entries) == 0 {
		return nil, nil, fmt.Errorf("request was not journaled: %d %s", rec.Code, rec.Body.String())
	}
	e := entries[len(entries)-1]
	if e.Conversation == nil && rec.Code >= 400 {
		// Not decodable at all: report the provider's own answer.
		return nil, &e, fmt.Errorf("%d %s", rec.Code, rec.Body.String())
	}
	return e.Violations, &e, nil
}
