package mockprovider

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// TestServer is a mock provider on a loopback port for a Go test, in the
// manner of httptest.Server.
type TestServer struct {
	*httptest.Server
	Mock *Server
}

// NewTestServer starts a mock provider and closes it when the test ends.
func NewTestServer(t testing.TB, opts Options) *TestServer {
	t.Helper()
	m := New(opts)
	ts := &TestServer{Server: httptest.NewServer(m), Mock: m}
	t.Cleanup(func() { ts.Close(); m.Close() })
	return ts
}

// OpenAIBaseURL is the base URL for the OpenAI SDKs (it includes /v1).
func (ts *TestServer) OpenAIBaseURL() string { return ts.URL + "/v1" }

// AnthropicBaseURL is the base URL for the Anthropic SDKs.
func (ts *TestServer) AnthropicBaseURL() string { return ts.URL }

// GeminiBaseURL is the base URL for the Gemini SDKs.
func (ts *TestServer) GeminiBaseURL() string { return ts.URL }

// Journal returns a session's journal (empty for an unknown key).
func (ts *TestServer) Journal(key string) []session.Entry {
	s, ok := ts.Mock.Sessions().LookupKeyOrID(key)
	if !ok {
		return nil
	}
	// An SDK may return at a stream's last event, before the mock has
	// journaled the request.
	s.Settle(5 * time.Second)
	entries, _ := s.Journal()
	return entries
}

// Violations returns every violation journaled for a session, in order.
func (ts *TestServer) Violations(key string) []rules.Violation {
	var out []rules.Violation
	for _, e := range ts.Journal(key) {
		out = append(out, e.Violations...)
	}
	return out
}
