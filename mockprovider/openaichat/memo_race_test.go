package openaichat_test

import (
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

// raceTurns are the requests of one tool loop: each re-sends the history
// before it, so from the second on most messages come from the memo.
var raceTurns = []string{
	`{"model":"gpt-4.1","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is the weather in Paris?"}],
	  "tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]%s}`,
	`{"model":"gpt-4.1","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is the weather in Paris?"},
	  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
	  {"role":"tool","tool_call_id":"call_1","content":"{\"temperature\":18}"}],
	  "tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]%s}`,
	`{"model":"gpt-4.1","messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is the weather in Paris?"},
	  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":{"city":"Paris","n":1.5}}}]},
	  {"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"18"}]}],
	  "tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]%s}`,
}

// perSession are the members that differ between sessions: the minted
// ids and the timestamp.
var perSession = regexp.MustCompile(`"(created|id)":("[^"]*"|\d+)`)

// raceLoop runs the loop on a fresh session, streamed or not, and returns
// the answers without what differs between sessions.
func raceLoop(t *testing.T, url, key string) []string {
	var out []string
	for _, stream := range []string{``, `,"stream":true,"stream_options":{"include_usage":true}`} {
		for _, turn := range raceTurns {
			a := post(t, url, key, []byte(fmt.Sprintf(turn, stream)), nil)
			out = append(out, fmt.Sprint(a.Status, " ", perSession.ReplaceAllString(string(a.Body), `"$1":0`)))
		}
	}
	return out
}

// TestMemoSharedAcrossGoroutines serves the same multi-turn bodies from
// several goroutines at once through the real handler (run with -race: a
// remembered message is shared by all of them), each answer as a lone
// session gets it. The third turn sends its call's arguments as an object
// (a violation, answered in the strict server's error), which the
// conversation normalizes: a shared map written there would race.
func TestMemoSharedAcrossGoroutines(t *testing.T) {
	for _, opts := range []mockprovider.Options{{}, lenientOptions()} {
		ts := httptest.NewServer(mockprovider.New(opts))
		want := raceLoop(t, ts.URL, "sk-race-reference")
		for k := 0; k < len(want); k += len(raceTurns) {
			if !strings.HasPrefix(want[k], "200 ") || !strings.Contains(want[k], "get_weather") || !strings.HasPrefix(want[k+1], "200 ") {
				t.Fatalf("the loop is not answered: %v", want)
			}
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 5 {
					got := raceLoop(t, ts.URL, fmt.Sprintf("sk-race-%d-%d", g, i))
					for k := range want {
						if got[k] != want[k] {
							t.Errorf("goroutine %d, loop %d, answer %d:\n got %s\nwant %s", g, i, k, got[k], want[k])
						}
					}
				}
			}()
		}
		wg.Wait()
		ts.Close()
	}
}
