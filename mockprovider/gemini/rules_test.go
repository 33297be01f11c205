package gemini_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// TestRuleCases posts every case's Bad request (it must get the real API's
// status, envelope, message and the X-Toolwire-Rule header) and its Good
// request (it must pass without that violation).
func TestRuleCases(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for i, rc := range gemini.RuleCases() {
		t.Run(fmt.Sprintf("%s/%s", rc.Rule, rc.Name), func(t *testing.T) {
			badKey, goodKey := fmt.Sprintf("case-%d-bad", i), fmt.Sprintf("case-%d-good", i)
			resp, b := postRaw(t, ts, rc.Path, badKey, rc.Bad, rc.Headers)
			if rc.WantStatus == 0 {
				// A SHOULD rule: answered, and journaled.
				journaled := false
				for _, v := range ts.Violations(badKey) {
					journaled = journaled || v.Rule == rc.Rule
				}
				if resp.StatusCode != http.StatusOK || !journaled {
					t.Fatalf("bad: status %d, journaled %v: %s", resp.StatusCode, ts.Violations(badKey), b)
				}
				return
			}
			if resp.StatusCode != rc.WantStatus {
				t.Fatalf("bad: status %d, want %d: %s", resp.StatusCode, rc.WantStatus, b)
			}
			ge := parseGoogleError(t, resp.StatusCode, b)
			wantStatus := "INVALID_ARGUMENT"
			if rc.WantStatus == http.StatusNotFound {
				wantStatus = "NOT_FOUND"
			}
			if ge.Error.Status != wantStatus {
				t.Errorf("bad: status %q, want %s", ge.Error.Status, wantStatus)
			}
			if !strings.HasPrefix(ge.Error.Message, rc.WantMessage) {
				t.Errorf("bad: message\n%q\nwant prefix\n%q", ge.Error.Message, rc.WantMessage)
			}
			if got := resp.Header.Get(wire.RuleHeader); got != rc.Rule {
				t.Errorf("bad: %s = %q, want %q", wire.RuleHeader, got, rc.Rule)
			}

			goodPath := rc.Path
			if rc.GoodPath != "" {
				goodPath = rc.GoodPath
			}
			resp, b = postRaw(t, ts, goodPath, goodKey, rc.Good, rc.Headers)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("good: status %d: %s", resp.StatusCode, b)
			}
			for _, v := range ts.Violations(goodKey) {
				if v.Rule == rc.Rule {
					t.Errorf("good request still violates %s: %s", rc.Rule, v)
				}
			}
		})
	}
}

// TestEveryCheckedRuleHasACase keeps the catalog and the cases in step.
func TestEveryCheckedRuleHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, rc := range gemini.RuleCases() {
		covered[rc.Rule] = true
	}
	ids := map[string]bool{}
	for _, r := range gemini.New().Rules() {
		ids[r.ID] = true
		if r.Check != nil && !covered[r.ID] {
			t.Errorf("rule %s has a check but no RuleCase", r.ID)
		}
	}
	for id := range covered {
		if !ids[id] {
			t.Errorf("RuleCase names unknown rule %s", id)
		}
	}
	// The catalog must load (unique ids, complete entries).
	rules.NewCatalog(gemini.New().Rules())
}

func optionsWith(f func(*rules.Options)) mockprovider.Options {
	o := rules.DefaultOptions()
	f(&o)
	return mockprovider.Options{Rules: o}
}

// TestRoleMessageOption: --gemini-role-message v3.6 gives the newer text,
// naming the role sent.
func TestRoleMessageOption(t *testing.T) {
	ts := newServer(t, optionsWith(func(o *rules.Options) { o.GeminiRoleMessage = "v3.6" }))
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"function","parts":[{"text":"x"}]}]}`
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "k", []byte(body), nil)
	ge := parseGoogleError(t, resp.StatusCode, b)
	want := "Role 'function' is not supported. Please use a valid role: SYSTEM, SYSTEM_1, USER, ASSISTANT, DEVELOPER, CONTEXT, USER_CONTEXT, MODEL, USER."
	if resp.StatusCode != 400 || ge.Error.Message != want {
		t.Fatalf("got %d %q, want 400 %q", resp.StatusCode, ge.Error.Message, want)
	}
}

// TestThoughtSignatureOption: "never" turns enforcement off on Gemini 3,
// "always" turns it on for 2.5.
func TestThoughtSignatureOption(t *testing.T) {
	unsigned := []byte(`{"contents":[{"role":"user","parts":[{"text":"weather?"}]},{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}]}`)
	for _, tc := range []struct {
		option, model string
		want          int
	}{
		{"auto", "gemini-3-flash-preview", 400},
		{"auto", "gemini-2.5-flash", 200},
		{"never", "gemini-3-pro-preview", 200},
		{"always", "gemini-2.5-pro", 400},
	} {
		ts := newServer(t, optionsWith(func(o *rules.Options) { o.ThoughtSignatures = tc.option }))
		resp, b := postRaw(t, ts, "/v1beta/models/"+tc.model+":generateContent", "k", unsigned, nil)
		if resp.StatusCode != tc.want {
			t.Errorf("%s on %s: status %d, want %d: %s", tc.option, tc.model, resp.StatusCode, tc.want, b)
		}
	}
}

// TestSignatureOnlyCheckedInCurrentTurn: an unsigned call before the latest
// user text is history the API no longer validates.
func TestSignatureOnlyCheckedInCurrentTurn(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	body := `{"contents":[
	 {"role":"user","parts":[{"text":"weather?"}]},
	 {"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{}}}]},
	 {"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]},
	 {"role":"model","parts":[{"text":"Sunny."}]},
	 {"role":"user","parts":[{"text":"thanks"}]}]}`
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-3-flash-preview:generateContent", "k", []byte(body), nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
}

// TestLenientAnswersButJournals: --lenient lets a breach through and keeps
// it in the journal.
func TestLenientAnswersButJournals(t *testing.T) {
	ts := newServer(t, optionsWith(func(o *rules.Options) { o.Lenient = true }))
	var rc rules.Case
	for _, c := range gemini.RuleCases() {
		if c.Rule == gemini.RuleModelExists {
			rc = c // a retired model
			break
		}
	}
	resp, b := postRaw(t, ts, rc.Path, "lenient", rc.Bad, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	vs := ts.Violations("lenient")
	if len(vs) == 0 || vs[0].Rule != rc.Rule {
		t.Fatalf("journaled %v, want %s", vs, rc.Rule)
	}
}

// TestAuthAndRouting: the key may come from the header or ?key=; none is
// the verbatim 403; unknown methods and malformed JSON are Google-shaped.
func TestAuthAndRouting(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	ok := []byte(`{"contents":[{"parts":[{"text":"hi"}]}]}`)

	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "", ok, nil)
	ge := parseGoogleError(t, resp.StatusCode, b)
	if resp.StatusCode != http.StatusForbidden || ge.Error.Status != "PERMISSION_DENIED" ||
		ge.Error.Message != "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API." {
		t.Fatalf("no key: %d %s", resp.StatusCode, b)
	}

	resp, b = postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent?key=query-key", "", ok, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("?key=: %d %s", resp.StatusCode, b)
	}
	if len(ts.Journal("query-key")) != 1 {
		t.Fatalf("?key= did not name the session")
	}

	resp, b = postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:countEverything", "k", ok, nil)
	if ge := parseGoogleError(t, resp.StatusCode, b); resp.StatusCode != http.StatusNotFound || ge.Error.Status != "NOT_FOUND" {
		t.Fatalf("unknown method: %d %s", resp.StatusCode, b)
	}

	for _, body := range []string{`{"contents": [`, `{"contents": x}`, `[1,2]`, `{"contents":"hello"}`} {
		resp, b = postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:generateContent", "k", []byte(body), nil)
		ge := parseGoogleError(t, resp.StatusCode, b)
		if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(ge.Error.Message, "Invalid JSON payload received.") {
			t.Errorf("body %s: %d %s", body, resp.StatusCode, b)
		}
	}
}

// TestStreamWithoutAltSSE: without ?alt=sse the API streams one JSON array.
func TestStreamWithoutAltSSE(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	resp, b := postRaw(t, ts, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "k",
		[]byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`), map[string]string{"X-Toolwire-Stream": "fragment_size=5"})
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), "[{") {
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
}

// TestSnakeCaseFieldNames: the API also takes proto field names, so rules
// see snake_case calls and signatures, while free-form args keep theirs.
func TestSnakeCaseFieldNames(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	path := "/v1beta/models/gemini-3-flash-preview:generateContent"
	body := func(sig string) []byte {
		return []byte(`{"contents":[{"role":"user","parts":[{"text":"weather?"}]},
		 {"role":"model","parts":[{"function_call":{"name":"get_weather","args":{"city_name":"Paris"}}` + sig + `}]},
		 {"role":"user","parts":[{"function_response":{"name":"get_weather","response":{"output":"sunny"}}}]}],
		 "system_instruction":{"parts":[{"text":"be brief"}]}}`)
	}
	resp, b := postRaw(t, ts, path, "snake-bad", body(""), nil)
	if resp.StatusCode != 400 || resp.Header.Get(wire.RuleHeader) != "gemini.thought-signature" {
		t.Fatalf("unsigned snake_case call: %d %s", resp.StatusCode, b)
	}
	resp, b = postRaw(t, ts, path, "snake-good", body(`,"thought_signature":"skip_thought_signature_validator"`), nil)
	if resp.StatusCode != 200 {
		t.Fatalf("signed snake_case call: %d %s", resp.StatusCode, b)
	}
	c := ts.Journal("snake-good")[0].Conversation
	if c.System != "be brief" || c.Turns[1].Calls()[0].Arguments["city_name"] != "Paris" {
		t.Fatalf("decoded %+v", c)
	}
}

// TestRuleCasesShared runs the cases through the runner every dialect
// shares, against the full server (all dialects, one catalog).
func TestRuleCasesShared(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	ruletest.Covers(t, ts, conv.Gemini, gemini.RuleCases())
	ruletest.Run(t, ts, conv.Gemini, gemini.RuleCases())
}

// TestVerbatimMessages pins the texts the reference quotes, so a typo in a
// constant cannot pass through the cases that reuse it.
func TestVerbatimMessages(t *testing.T) {
	for got, want := range map[string]string{
		gemini.MsgRoleClassic:       "Please use a valid role: user, model.",
		gemini.MsgResponseCount:     "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
		gemini.MsgResponseAfterCall: "Please ensure that function response turn comes immediately after a function call turn.",
		gemini.MsgCallAfterUser:     "Please ensure that function call turn comes immediately after a user turn or after a function response turn.",
		gemini.MsgCallTurnMixed:     "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts.",
		gemini.MsgMultimodalNotSupp: "Multimodal function responses are not supported for this model",
	} {
		if got != want {
			t.Errorf("message %q, want %q", got, want)
		}
	}
}
