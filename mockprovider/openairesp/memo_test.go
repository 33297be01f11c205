package openairesp_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// memoBody is one body a test sends, with the endpoint it goes to.
type memoBody struct {
	name, path string
	body       []byte
}

// memoBodies are every body the rule cases and the decode tests send,
// and a tool loop's turns (bench testdata included).
func memoBodies(t *testing.T) []memoBody {
	t.Helper()
	var out []memoBody
	add := func(name, path string, b []byte) { out = append(out, memoBody{name, path, b}) }
	for _, c := range openairesp.RuleCases() {
		for i, s := range c.Setup {
			add(fmt.Sprintf("%s setup %d", c.Name, i), c.Path, s)
		}
		add(c.Name+" bad", c.Path, c.Bad)
		add(c.Name+" good", c.Path, c.Good)
	}
	for _, c := range strictCases {
		add(c.name+" bad", "", []byte(c.bad))
		add(c.name+" good", "", []byte(c.good))
	}
	add("grouped turns", "", []byte(groupedTurnsBody))
	add("offline", "", []byte(offlineBody))
	for body := range typeErrorBodies {
		add("type error", "", []byte(body))
	}
	add("judged first", "", []byte(judgedBody))
	for i, b := range loopTurns {
		add(fmt.Sprintf("loop turn %d", i), "", []byte(b))
	}
	for _, turn := range []string{"call", "result"} {
		b, err := os.ReadFile(filepath.Join("..", "benchmarks", "testdata", "openai-responses."+turn+".json"))
		if err != nil {
			t.Fatal(err)
		}
		add("bench "+turn, "", b)
	}
	return out
}

// loopTurns are a tool loop's requests, each repeating the history of the
// one before: hosted items and tools, references,
// instructions and the other members echoed as sent.
// (A role-judged message is in judgedBody: it is answered with a 400.)
var loopTurns = []string{
	`{"model":"gpt-5","instructions":"Be brief.","tools":[` + loopTools + `],"input":[{"role":"user","content":"Weather in Paris?"}]}`,
	`{"model":"gpt-5","instructions":"Be brief.","tools":[` + loopTools + `],"tool_choice":"auto","metadata":{"a":"b"},"input":[{"role":"user","content":"Weather in Paris?"},` + loopHistory + `]}`,
	`{"model":"gpt-5","instructions":"Be brief.","tools":[` + loopTools + `],"reasoning":{"effort":"low"},"text":{"verbosity":"low"},"max_output_tokens":500,"input":[{"role":"user","content":"Weather in Paris?"},` + loopHistory + `,{"role":"assistant","content":[{"type":"output_text","text":"Sunny."}]},{"type":"item_reference","id":"fc_1"},{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"x"}},{"role":"user","content":"And Rome?"}]}`,
}

// judgedBody holds a Chat-style tool message (judged by its role before
// its members, so it decodes leniently and a rule answers it), an
// assistant part relabelled, and a type-less reference to a reasoning
// item that nothing follows.
const judgedBody = `{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},` + loopHistory + `,{"role":"tool","tool_call_id":"call_1","content":"sunny"},{"role":"assistant","content":[{"type":"input_text","text":"x","annotations":[]}]},{"id":"rs_1"}]}`

const (
	loopTools   = `{"type":"function","name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true},{"type":"web_search"}`
	loopHistory = `{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},{"type":"function_call_output","call_id":"call_1","output":"sunny"}`
)

// decoded is everything a decode gives: the request the checks read, the
// conversation, the checks' outcome, or the error answer.
type decoded struct {
	req        any
	conv       *conv.Conversation
	violations []rules.Violation
	err        *wire.APIError
}

func decodeOnce(t *testing.T, b memoBody, lenient bool) decoded {
	t.Helper()
	d := openairesp.New()
	x := &dialect.Exchange{Env: &rules.Env{}}
	x.Env.Options.Lenient = lenient
	if b.path != "" {
		x.R = httptest.NewRequest(http.MethodPost, b.path, nil)
	}
	req, c, aerr := d.Decode(x, bytes.Clone(b.body))
	out := decoded{req: req, conv: c, err: aerr}
	if aerr == nil {
		out.violations = rules.Run(d.Rules(), req, x.Env)
	}
	return out
}

// TestMemoDecodesAsFresh: a body decoded through warm memos gives exactly
// what decoding it afresh gives (request, conversation, violations, or
// the error with its path and text), strict and lenient.
func TestMemoDecodesAsFresh(t *testing.T) {
	bodies := memoBodies(t)
	for _, lenient := range []bool{false, true} {
		for round := range 2 { // the second round finds every value remembered
			for _, b := range bodies {
				openairesp.SetMemosOff(true)
				fresh := decodeOnce(t, b, lenient)
				openairesp.SetMemosOff(false)
				memo := decodeOnce(t, b, lenient)
				if !reflect.DeepEqual(fresh, memo) {
					t.Errorf("%s (lenient %v, round %d): through the memos\n%#v\nafresh\n%#v", b.name, lenient, round, memo, fresh)
				}
			}
		}
	}
}

// TestMemoIsHit: the items and tools a second request repeats are the
// values the first decoded (one decode, shared), unless the memos are off.
func TestMemoIsHit(t *testing.T) {
	first, second := decodedItems(t, loopTurns[1]), decodedItems(t, loopTurns[2])
	if first.tools == nil || first.tools != second.tools {
		t.Errorf("the repeated tools were decoded again (%p, %p)", first.tools, second.tools)
	}
	// The user message, the reasoning, the call and its output repeat.
	for i := range 4 {
		if first.items[i] == nil || first.items[i] != second.items[i] {
			t.Errorf("repeated item %d decoded again (%p, %p)", i, first.items[i], second.items[i])
		}
	}
	openairesp.SetMemosOff(true)
	defer openairesp.SetMemosOff(false)
	if again := decodedItems(t, loopTurns[1]); again.items[0] == first.items[0] || again.tools == first.tools {
		t.Error("with the memos off an item or the tools came from the memo")
	}
}

// decodedValues points at what decoding made: the first tool's variant and
// each item's.
type decodedValues struct {
	tools any
	items []any
}

func decodedItems(t *testing.T, body string) decodedValues {
	t.Helper()
	req, _, aerr := openairesp.New().Decode(&dialect.Exchange{}, []byte(body))
	if aerr != nil {
		t.Fatal(aerr)
	}
	w := req.(*openairesp.Request).W
	out := decodedValues{tools: w.Tools[0].OfFunction}
	for _, it := range w.Input.OfInputItemList {
		switch {
		case it.OfMessage != nil:
			out.items = append(out.items, it.OfMessage)
		case it.OfReasoning != nil:
			out.items = append(out.items, it.OfReasoning)
		case it.OfFunctionCall != nil:
			out.items = append(out.items, it.OfFunctionCall)
		case it.OfFunctionCallOutput != nil:
			out.items = append(out.items, it.OfFunctionCallOutput)
		default:
			out.items = append(out.items, nil)
		}
	}
	return out
}

// volatile are the parts of an answer that differ between sessions and
// seconds: minted ids and timestamps.
var volatile = regexp.MustCompile(`"(resp|msg|fc|rs|call)_[0-9A-Za-z]+"|"(created_at|completed_at)":[0-9]+|"sequence_number":[0-9]+`)

// TestMemoServesConcurrentLoops serves the same multi-turn loop, stored
// responses and previous_response_id included, from several sessions at
// once through the real handler: every answer equals the one a lone
// session gets (run it with -race: the memos' values are shared).
func TestMemoServesConcurrentLoops(t *testing.T) {
	srv := mockprovider.New(mockprovider.Options{})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	loop := func(key string) []string {
		var answers []string
		for _, stream := range []bool{false, true} {
			for _, b := range append(loopTurns[:2:2], loopTurns[2]) {
				if stream {
					b = b[:len(b)-1] + `,"stream":true}`
				}
				answers = append(answers, string(volatile.ReplaceAll(postAnswer(t, ts.URL, key, b), nil)))
			}
		}
		// Continue a stored response: its items (shared with the memo) come
		// back as the request's prior items.
		prev := postAnswer(t, ts.URL, key, loopTurns[0])
		cont := fmt.Sprintf(`{"model":"gpt-5","previous_response_id":%q,"input":[{"type":"function_call_output","call_id":%q,"output":"sunny"}]}`,
			gjson.GetBytes(prev, "id").String(), gjson.GetBytes(prev, "output.#(type==\"function_call\").call_id").String())
		answers = append(answers, string(volatile.ReplaceAll(postAnswer(t, ts.URL, key, cont), nil)))
		return answers
	}
	want := loop("sk-memo-ref")
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 5 {
				got := loop(fmt.Sprintf("sk-memo-%d-%d", g, r))
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("session %d round %d answer %d:\n got %s\nwant %s", g, r, i, got[i], want[i])
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// postAnswer posts a body and returns the answer, failing on any status
// but 200.
func postAnswer(t *testing.T, url, key, body string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+openairesp.Path, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Error(err)
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return nil
	}
	defer res.Body.Close()
	var out bytes.Buffer
	_, _ = out.ReadFrom(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Errorf("%s: %d %s", body, res.StatusCode, out.Bytes())
	}
	return out.Bytes()
}

// FuzzMemoDecodesAsFresh: any JSON body, decoded through the memos
// (twice, so the second finds what the first kept), gives what decoding
// afresh gives, for bodies that are not JSON too: a value the memo does
// not know is decoded in place, so {"tools":[0,00]} stops at the wrong
// type either way.
func FuzzMemoDecodesAsFresh(f *testing.F) {
	for _, b := range memoBodies(&testing.T{}) {
		f.Add(b.body, false)
	}
	f.Fuzz(func(t *testing.T, body []byte, lenient bool) {
		b := memoBody{name: "fuzz", body: body}
		openairesp.SetMemosOff(true)
		fresh := decodeOnce(t, b, lenient)
		openairesp.SetMemosOff(false)
		for range 2 {
			if memo := decodeOnce(t, b, lenient); !reflect.DeepEqual(fresh, memo) {
				t.Fatalf("%q (lenient %v): through the memos\n%#v\nafresh\n%#v", body, lenient, memo, fresh)
			}
		}
	})
}
