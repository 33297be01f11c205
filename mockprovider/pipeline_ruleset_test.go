package mockprovider_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// countingRules counts how often the server asks a dialect for its rules.
type countingRules struct {
	dialect.Dialect
	calls atomic.Int64
}

// ModelAPI keeps the wrapped dialect's model catalog (dialect.Catalogued).
func (c *countingRules) ModelAPI() models.API { return dialect.ModelAPI(c.Dialect) }

func (c *countingRules) Rules() []rules.Rule {
	c.calls.Add(1)
	return c.Dialect.Rules()
}

// A dialect's rules are asked for when the server is built, not per
// request: building the list may sort every declaration (Gemini's and
// Anthropic's do), work a request should not repeat.
func TestRulesAskedOncePerServer(t *testing.T) {
	d := &countingRules{Dialect: gemini.New()}
	srv := mockprovider.New(mockprovider.Options{Dialects: []dialect.Dialect{d}})
	built := d.calls.Load()
	for range 20 {
		r := httptest.NewRequest(http.MethodPost, "/v1beta/models/gemini-2.5-flash:generateContent",
			strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}]}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("x-goog-api-key", "rules-once")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
	if n := d.calls.Load(); n != built {
		t.Errorf("Rules called %d times while building the server and %d more for 20 requests; want none per request", built, n-built)
	}
}
