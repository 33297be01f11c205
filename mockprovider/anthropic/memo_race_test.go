package anthropic_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// TestMemoSharedAcrossConcurrentLoops serves the turns of the same tool
// loops from several goroutines at once (run it with -race): the messages
// and tools decoded from the shared memos must give every session the
// answer a lone client gets.
func TestMemoSharedAcrossConcurrentLoops(t *testing.T) {
	srv := httptest.NewServer(mockprovider.New(mockprovider.Options{Dialects: []dialect.Dialect{anthropic.New()}}))
	defer srv.Close()
	bodies := loopBodies()
	post := func(key, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("X-Api-Key", key)
		req.Header.Set("Anthropic-Version", "2023-06-01")
		res, err := srv.Client().Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(out)
	}
	// What a lone client gets, ids left out (they are per session).
	want := make([]string, len(bodies))
	for i, b := range bodies {
		status, out := post("memo-lone", b)
		if status != http.StatusOK {
			t.Fatalf("turn %d: %d %s", i, status, out)
		}
		want[i] = answerShape(out)
	}
	const workers, rounds = 8, 6
	var wg sync.WaitGroup
	errs := make(chan string, workers*rounds*len(bodies))
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				for i, b := range bodies {
					status, out := post(fmt.Sprintf("memo-%d-%d", w, r), b)
					if status != http.StatusOK {
						errs <- fmt.Sprintf("worker %d turn %d: %d %s", w, i, status, out)
					} else if got := answerShape(out); got != want[i] {
						errs <- fmt.Sprintf("worker %d turn %d: %s, alone %s", w, i, got, want[i])
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// loopBodies are the requests of tool loops: each turn resends the
// history before it and adds the last answer and its result, with
// thinking on and off and a cache breakpoint.
func loopBodies() []string {
	const tools = `"tools":[{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]`
	var out []string
	for _, head := range []string{
		`"model":"claude-sonnet-4-5","max_tokens":1024,` + tools,
		`"model":"claude-sonnet-4-5","max_tokens":1024,"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],` + tools,
	} {
		history := []string{`{"role":"user","content":"What is the weather in Paris, Rome and Oslo?"}`}
		for k, city := range []string{"Paris", "Rome", "Oslo"} {
			out = append(out, `{`+head+`,"messages":[`+strings.Join(history, ",")+`]}`)
			id := fmt.Sprintf("toolu_%d", k)
			history = append(history,
				`{"role":"assistant","content":[{"type":"text","text":"Checking `+city+`."},{"type":"tool_use","id":"`+id+`","name":"get_weather","input":{"city":"`+city+`"}}]}`,
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":[{"type":"text","text":"{\"temperature\":`+fmt.Sprint(10+k)+`}"}]}]}`)
		}
		out = append(out, `{`+head+`,"messages":[`+strings.Join(history, ",")+`]}`)
	}
	return out
}

// answerShape is a Message without its ids: stop reason, usage, and each
// block's type, name, input and text.
func answerShape(body string) string {
	g := gjson.Parse(body)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", g.Get("stop_reason"), g.Get("model"), g.Get("usage").Raw)
	for _, c := range g.Get("content").Array() {
		fmt.Fprintf(&b, " [%s %s %s %s]", c.Get("type"), c.Get("name"), c.Get("input").Raw, c.Get("text"))
	}
	return b.String()
}
