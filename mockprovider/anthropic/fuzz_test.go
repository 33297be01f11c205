package anthropic_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// FuzzDecode posts arbitrary bodies through the whole pipeline (decode,
// rules, model, encode): nothing may panic, and every rejection must be a
// 4xx in the Anthropic envelope. Seeds are the rule cases plus a few
// shapes that stress the decoder.
func FuzzDecode(f *testing.F) {
	for _, c := range anthropic.RuleCases() {
		f.Add(string(c.Bad))
		f.Add(string(c.Good))
	}
	for _, s := range []string{
		``, `null`, `[]`, `{}`, `{"messages":null}`, simple,
		`{"model":"m","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":[{}]}]}]}`,
		`{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":[]}]}]}`,
	} {
		f.Add(s)
	}
	srv := mockprovider.New(mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New()}})
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest(http.MethodPost, "/v1/messages", strings.NewReader(body))
		req.Header.Set("X-Api-Key", "fuzz")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		out := rec.Body.Bytes()
		switch {
		case rec.Code == http.StatusOK:
			if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
				if !bytes.HasPrefix(out, []byte("event: message_start\n")) || !bytes.HasSuffix(out, []byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")) {
					t.Fatalf("incomplete stream for %q:\n%s", body, out)
				}
			} else if gjson.GetBytes(out, "type").String() != "message" {
				t.Fatalf("200 without a message for %q: %s", body, out)
			}
		case rec.Code >= 400 && rec.Code < 500:
			g := gjson.ParseBytes(out)
			if g.Get("type").String() != "error" || g.Get("error.type").String() == "" || g.Get("error.message").String() == "" ||
				!strings.HasPrefix(g.Get("request_id").String(), "req_") {
				t.Fatalf("rejection of %q not in the Anthropic envelope: %d %s", body, rec.Code, out)
			}
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, out)
		}
	})
}
