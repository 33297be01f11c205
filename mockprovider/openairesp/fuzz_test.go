package openairesp_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
)

// FuzzDecode posts arbitrary bodies through the whole pipeline (decode,
// rules, model, encode): nothing may panic, and every rejection must be a
// 4xx in OpenAI's error envelope.
func FuzzDecode(f *testing.F) {
	for _, rc := range openairesp.RuleCases() {
		f.Add([]byte(rc.Bad))
		f.Add([]byte(rc.Good))
		for _, s := range rc.Setup {
			f.Add([]byte(s))
		}
	}
	f.Add([]byte(`{"model":"gpt-5","input":"hi","stream":true,"tools":[{"type":"function","name":"f"}]}`))
	f.Add([]byte(`{"model":"gpt-4.1","input":[{"type":"item_reference","id":"msg_1"}],"tool_choice":{"type":"function","name":"f"}}`))
	f.Add([]byte(`not json`))
	srv := mockprovider.New(mockprovider.Options{})
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, openairesp.Path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk-fuzz")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code == http.StatusOK {
			return
		}
		if rec.Code < 400 || rec.Code >= 500 {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		var env struct {
			Error *struct {
				Message string           `json:"message"`
				Type    string           `json:"type"`
				Param   *json.RawMessage `json:"param"`
				Code    *json.RawMessage `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Message == "" || env.Error.Type == "" ||
			!strings.Contains(rec.Body.String(), `"param":`) || !strings.Contains(rec.Body.String(), `"code":`) {
			t.Fatalf("status %d without the OpenAI envelope for %q: %s", rec.Code, body, rec.Body)
		}
	})
}
