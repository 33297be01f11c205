package openairesp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// BenchmarkContinuedLong continues, with previous_response_id, a response
// whose input held 400 earlier tool rounds: what a continuation costs
// when the session stored the conversation (store:false, so that the
// continuations do not push the response out of the session).
func BenchmarkContinuedLong(b *testing.B) {
	// Room for every continuation's output items beside the response
	// they all continue.
	limits := session.DefaultLimits()
	limits.StoredResponses = 1 << 20
	srv := mockprovider.New(mockprovider.Options{Limits: limits})
	post := func(body string) map[string]any {
		req := httptest.NewRequest(http.MethodPost, "/v1/responses", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer bench-continued")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			b.Fatal(err)
		}
		return out
	}
	const tools = `"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
	var items bytes.Buffer
	items.WriteString(`{"role":"user","content":"weather?"}`)
	for i := range 400 {
		fmt.Fprintf(&items, `,{"type":"function_call","call_id":"call_%d","name":"get_weather","arguments":"{\"city\":\"Paris %d\"}"}`, i, i)
		fmt.Fprintf(&items, `,{"type":"function_call_output","call_id":"call_%d","output":"sunny %d"}`, i, i)
	}
	first := post(`{"model":"gpt-4.1",` + tools + `,"input":[` + items.String() + `]}`)
	next := `{"model":"gpt-4.1",` + tools + `,"previous_response_id":"` + first["id"].(string) + `","store":false,"input":"thanks, and tomorrow?"}`
	post(next)
	b.ReportAllocs()
	for b.Loop() {
		post(next)
	}
}
