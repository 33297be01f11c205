package mockprovider_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// recordingTB stands in for a test so a helper's failure can be inspected
// instead of failing the real test.
type recordingTB struct {
	testing.TB
	failures []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recordingTB) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recordingTB) Cleanup(f func())                  { r.cleanups = append(r.cleanups, f) }

// runCleanups runs the registered cleanups last-first, as testing does.
func (r *recordingTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// A tool message answering a call id no assistant message made: a MUST
// rule of Chat Completions, answered with a 400.
const orphanToolResult = `{"model":"gpt-4o-mini","messages":[
 {"role":"user","content":"Weather in Paris?"},
 {"role":"tool","tool_call_id":"call_missing","content":"{\"temperature\":22}"}]}`

const validChat = `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}`

func chat(t *testing.T, ts *mockprovider.TestServer, key, body string) int {
	t.Helper()
	code, _ := rawPost(t, ts.OpenAIBaseURL()+"/chat/completions", map[string]string{"Authorization": "Bearer " + key}, body)
	return code
}

func TestRequireNoViolationsFailsOnAMustViolation(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	if code := chat(t, ts, "broken", orphanToolResult); code != http.StatusBadRequest {
		t.Fatalf("orphan tool result answered %d, want 400", code)
	}
	vs := ts.MustViolations("broken")
	if len(vs) == 0 {
		t.Fatal("no MUST violation journaled for an orphan tool result")
	}
	fake := &recordingTB{TB: t}
	ts.RequireNoViolations(fake, "broken")
	if len(fake.failures) != 1 {
		t.Fatalf("want one failure, got %q", fake.failures)
	}
	msg := fake.failures[0]
	for _, want := range []string{`session "broken"`, vs[0].Rule, vs[0].Path, vs[0].Message} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure %q lacks %q", msg, want)
		}
	}
}

func TestRequireNoViolationsPassesACleanSession(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	if code := chat(t, ts, "clean", validChat); code != http.StatusOK {
		t.Fatalf("valid request answered %d", code)
	}
	ts.RequireNoViolations(t, "clean")
	ts.RequireNoViolations(t, "never-used") // an unknown session has nothing to report
}

func TestRequireNoViolationsIgnoresShould(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	chat(t, ts, "clean", validChat)
	s, _ := ts.Mock.Sessions().Lookup("clean")
	s.Record(sessionEntryWith(rules.Violation{Rule: "openai-chat.some-advice", Level: rules.SHOULD, Message: "advice"}))
	fake := &recordingTB{TB: t}
	ts.RequireNoViolations(fake, "clean")
	if len(fake.failures) != 0 {
		t.Fatalf("a SHOULD violation failed the test: %q", fake.failures)
	}
}

func TestRequireNoViolationsAtCleanupChecksEverySession(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	fake := &recordingTB{TB: t}
	ts.RequireNoViolationsAtCleanup(fake)
	chat(t, ts, "a-clean", validChat)
	chat(t, ts, "b-broken", orphanToolResult)
	chat(t, ts, "c-broken", orphanToolResult)
	if len(fake.failures) != 0 {
		t.Fatal("checked before the test ended")
	}
	fake.runCleanups()
	// Sessions are named by id (session.ID), never by key, in id order.
	b, c := session.ID("b-broken"), session.ID("c-broken")
	if b > c {
		b, c = c, b
	}
	if len(fake.failures) != 2 || !strings.Contains(fake.failures[0], `"`+b+`"`) || !strings.Contains(fake.failures[1], `"`+c+`"`) {
		t.Fatalf("want the two broken sessions in id order, got %q", fake.failures)
	}

	clean := mockprovider.NewTestServer(t, mockprovider.Options{})
	fake = &recordingTB{TB: t}
	clean.RequireNoViolationsAtCleanup(fake)
	chat(t, clean, "fine", validChat)
	fake.runCleanups()
	if len(fake.failures) != 0 {
		t.Fatalf("clean sessions failed: %q", fake.failures)
	}
}

func sessionEntryWith(v rules.Violation) session.Entry {
	return session.Entry{Dialect: conv.OpenAIChat, Method: http.MethodPost, Path: "/v1/chat/completions", Status: http.StatusOK, Violations: []rules.Violation{v}}
}
