package record

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRedactRemovesSecrets(t *testing.T) {
	in := `{"api_key":"abc","note":"use sk-proj-ABCDEFGHIJKLMNOPQRSTUV now","k":"AIzaSyA1234567890123456789012345678901","session":"my-session-key"}`
	out := Redact(in, "my-session-key")
	for _, leak := range []string{`"abc"`, "sk-proj-ABCDEFGHIJKLMNOPQRSTUV", "AIzaSyA1234567890123456789012345678901", "my-session-key"} {
		if strings.Contains(out, leak) {
			t.Errorf("redacted body still contains %q: %s", leak, out)
		}
	}
	if out := Redact(`{"content":"my key:\nsk-proj-ABCDEFGHIJKLMNOPQRSTUV"}`, ""); strings.Contains(out, "sk-proj-ABCDEFGHIJKLMNOPQRSTUV") {
		t.Errorf("a key after a JSON escape leaked: %s", out)
	}
	if got := redactQuery("/v1beta/models/m:streamGenerateContent?alt=sse&key=AIzaSECRET"); got != "/v1beta/models/m:streamGenerateContent?alt=sse&key=REDACTED" {
		t.Errorf("query key not redacted: %s", got)
	}
}

func TestParseUpstreams(t *testing.T) {
	up, err := ParseUpstreams("openai=https://api.openai.com/,anthropic=http://127.0.0.1:9")
	if err != nil || up["openai"] != "https://api.openai.com" || up["anthropic"] != "http://127.0.0.1:9" {
		t.Fatalf("got %v, %v", up, err)
	}
	for _, bad := range []string{"openai", "mistral=http://x", "gemini="} {
		if _, err := ParseUpstreams(bad); err == nil {
			t.Errorf("ParseUpstreams(%q) accepted", bad)
		}
	}
}

func TestEventsRoundTripWithTheirSeparator(t *testing.T) {
	for _, sep := range []string{"\n\n", "\r\n\r\n"} {
		nl := sep[:len(sep)/2]
		src := "event: a" + nl + "data: {\"x\":1}" + sep + "data: {\"y\":2}" + sep
		rec := httptest.NewRecorder()
		evs, gotSep, err := copyEvents(rec, nil, strings.NewReader(src))
		if err != nil || gotSep != sep || len(evs) != 2 || evs[0].Event != "a" || evs[1].Data != `{"y":2}` {
			t.Fatalf("sep %q: events %+v sep %q err %v", sep, evs, gotSep, err)
		}
		if rec.Body.String() != src {
			t.Fatalf("bytes were not passed through unchanged")
		}
		ex := Exchange{Status: 200, Events: evs, Separator: gotSep}
		out := httptest.NewRecorder()
		ex.Write(out)
		if out.Body.String() != src {
			t.Fatalf("replay differs:\n got %q\nwant %q", out.Body.String(), src)
		}
	}
}

func TestFindMatchesCanonicallyAndNamesTheClosest(t *testing.T) {
	rp := &Replayer{used: map[int]bool{}, exchanges: []Exchange{
		{Dialect: "anthropic", Method: "POST", Path: "/v1/messages", Request: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Status: 200, Body: "first"},
		{Dialect: "anthropic", Method: "POST", Path: "/v1/messages", Request: `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, Status: 200, Body: "second"},
	}}
	same := `{"messages":[{"content":"hi","role":"user"}],  "model":"m"}`
	a, _ := rp.Find("anthropic", "POST", "/v1/messages", same)
	b, _ := rp.Find("anthropic", "POST", "/v1/messages", same)
	if a == nil || b == nil || a.Body != "first" || b.Body != "second" {
		t.Fatalf("identical requests must replay in recorded order: %+v %+v", a, b)
	}
	miss, closest := rp.Find("anthropic", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"bye"}]}`)
	if miss != nil || !strings.Contains(closest, "closest recording: POST /v1/messages") {
		t.Fatalf("got %+v, %q", miss, closest)
	}
}
