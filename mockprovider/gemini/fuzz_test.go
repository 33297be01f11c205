package gemini_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
)

// fuzzPaths are the endpoints a fuzz input is posted to (chosen by a byte).
var fuzzPaths = []string{
	"/v1beta/models/gemini-2.5-flash:generateContent",
	"/v1beta/models/gemini-3-flash-preview:generateContent",
	"/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse",
	"/v1beta/models/gemini-2.5-pro:streamGenerateContent",
}

// FuzzDecode posts arbitrary bodies through the whole pipeline: it must
// never panic, and every rejection must be a 4xx in the Google envelope.
func FuzzDecode(f *testing.F) {
	for i, rc := range gemini.RuleCases() {
		f.Add(uint8(i), []byte(rc.Bad))
		f.Add(uint8(i+1), []byte(rc.Good))
	}
	f.Add(uint8(0), []byte(`{"contents":[{"parts":[{"functionResponse":{"response":"x","parts":[{}]}}]}]}`))
	f.Add(uint8(1), []byte(`{"contents":[{"role":"model","parts":[{"functionCall":{"args":[1]}},{"inlineData":{"data":7}}]}]}`))

	srv := mockprovider.New(mockprovider.Options{Dialects: []dialect.Dialect{gemini.New()}})
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		req := httptest.NewRequest(http.MethodPost, fuzzPaths[int(which)%len(fuzzPaths)], bytes.NewReader(body))
		req.Header.Set("x-goog-api-key", "fuzz")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			return
		}
		if rec.Code < 400 || rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.Bytes())
		}
		ge := parseGoogleError(t, rec.Code, rec.Body.Bytes())
		if rec.Code == http.StatusBadRequest && ge.Error.Status != "INVALID_ARGUMENT" {
			t.Fatalf("400 with status %q", ge.Error.Status)
		}
		if rule := rec.Header().Get("X-Toolwire-Rule"); rule != "" && !strings.HasPrefix(rule, "gemini.") {
			t.Fatalf("rule header %q", rule)
		}
	})
}
