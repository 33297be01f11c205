package gemini_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// raceTurns are the requests of one tool loop: each re-sends the history
// before it, so from the second on most contents come from the memo.
var raceTurns = []string{
	`{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}],
	  "tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}]}`,
	`{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]},
	  {"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnbmF0dXJl"}]},
	  {"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temperature":18,"condition":"partly cloudy"}}}]}],
	  "tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the weather","parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]}]}`,
	`{"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]},
	  {"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"c2lnbmF0dXJl"}]},
	  {"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":"18"}}]}],
	  "tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}]}]}`,
}

// perSession are the members minted per session.
var perSession = regexp.MustCompile(`"(responseId|thoughtSignature|id)":"[^"]*"`)

// raceLoop runs the loop on a fresh session, whole, streamed as SSE and
// as one array, and returns the answers without what differs between
// sessions.
func raceLoop(t *testing.T, url, key string) []string {
	var out []string
	for _, method := range []string{"generateContent", "streamGenerateContent?alt=sse", "streamGenerateContent"} {
		for _, turn := range raceTurns {
			req, err := http.NewRequest(http.MethodPost, url+"/v1beta/models/gemini-2.5-flash:"+method, bytes.NewReader([]byte(turn)))
			if err != nil {
				t.Error(err)
				return nil
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("x-goog-api-key", key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return nil
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			out = append(out, fmt.Sprint(resp.StatusCode, " ", perSession.ReplaceAllString(string(b), `"$1":""`)))
		}
	}
	return out
}

// TestMemoSharedAcrossGoroutines serves the same multi-turn bodies from
// several goroutines at once through the real handler (run with -race: a
// remembered content is shared by all of them), each answer as a lone
// session gets it, strict and lenient.
func TestMemoSharedAcrossGoroutines(t *testing.T) {
	lenient := optionsWith(func(o *rules.Options) { o.Lenient = true })
	for _, opts := range []mockprovider.Options{{}, lenient} {
		opts.Dialects = []dialect.Dialect{gemini.New()}
		ts := httptest.NewServer(mockprovider.New(opts))
		want := raceLoop(t, ts.URL, "race-reference")
		for k := 0; k < len(want); k += len(raceTurns) {
			if !strings.HasPrefix(want[k], "200 ") || !strings.Contains(want[k], "functionCall") || !strings.HasPrefix(want[k+1], "200 ") {
				t.Fatalf("the loop is not answered: %v", want)
			}
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 5 {
					got := raceLoop(t, ts.URL, fmt.Sprintf("race-%d-%d", g, i))
					for k := range want {
						if k >= len(got) || got[k] != want[k] {
							t.Errorf("goroutine %d, loop %d, answer %d:\n got %v\nwant %s", g, i, k, got, want[k])
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		ts.Close()
	}
}
