package openaichat_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// FuzzDecode runs arbitrary bodies through the dialect's half of the
// pipeline (decode, rules, model, encode): nothing panics, and every
// rejection is a 4xx in the OpenAI envelope.
func FuzzDecode(f *testing.F) {
	for _, c := range openaichat.RuleCases() {
		f.Add([]byte(c.Bad))
		f.Add([]byte(c.Good))
	}
	f.Add([]byte(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	d := openaichat.New()
	engine := &model.Engine{}
	f.Fuzz(func(t *testing.T, body []byte) {
		rec := httptest.NewRecorder()
		x := &dialect.Exchange{W: rec, R: httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil), Env: &rules.Env{Options: rules.DefaultOptions()}}
		req, c, aerr := d.Decode(x, body)
		if aerr != nil {
			checkRejection(t, d, aerr, body)
			return
		}
		if v := rules.FirstMust(rules.Run(d.Rules(), req, x.Env)); v != nil {
			checkRejection(t, d, wire.FromViolation(v), body)
		}
		// In lenient mode even a rule-breaking body reaches the model and
		// the encoder, so both run on everything that decodes.
		reply, err := engine.Next(c, "")
		if err != nil {
			t.Fatalf("model: %v", err)
		}
		d.Encode(x, req, c, reply)
		if rec.Code != http.StatusOK {
			t.Fatalf("encode status %d", rec.Code)
		}
	})
}

func checkRejection(t *testing.T, d *openaichat.Dialect, e *wire.APIError, body []byte) {
	t.Helper()
	if e.Status < 400 || e.Status > 499 || e.Message == "" || e.Type == "" {
		t.Fatalf("rejection %+v for %q", e, body)
	}
	rec := httptest.NewRecorder()
	d.WriteError(rec, e)
	if rec.Code != e.Status {
		t.Fatalf("written status %d, want %d", rec.Code, e.Status)
	}
	envelope(t, rec.Body.Bytes())
}
