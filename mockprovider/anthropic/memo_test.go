package anthropic

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Every body any test of the package decodes (the rule cases through the
// live server, the strict-decoding and SDK tests, the fuzz seeds and
// inputs) is decoded again from the warm memos, from empty memos and with
// no memo at all, and the results must agree: the request, its
// conversation, the error, and what the rules say of it. Errors are
// compared with the decode without any memo too: a value the memos do not
// know is decoded in place by the body's own decoder (wirejson.Memo), so
// a body with several faults is answered for the same one either way.
func init() { decodedHook = checkAgainstFreshDecode }

var comparedBodies atomic.Int64

func checkAgainstFreshDecode(body []byte, lenient, count bool, req *Request, aerr *wire.APIError) {
	if diff := memoDiff(body, lenient, count, req, aerr); diff != "" {
		panic(diff) // the hook has no *testing.T; a panic fails whichever test sent the body
	}
	comparedBodies.Add(1)
}

// memoDiff decodes body from the warm memos, from empty ones and with none
// and says how any differs from what the first decode gave ("" when none
// does).
func memoDiff(body []byte, lenient, count bool, req *Request, aerr *wire.APIError) string {
	type decoded struct {
		name string
		req  *Request
		err  *wire.APIError
	}
	var others []decoded
	for _, m := range []struct {
		name string
		memo *wirejson.Memos
	}{{"warm memo", memos}, {"empty memo", newMemos()}, {"no memo", nil}} {
		r, err := decodeThrough(m.memo, body, lenient, count)
		others = append(others, decoded{m.name, r, err})
	}
	for _, other := range others {
		if !reflect.DeepEqual(aerr, other.err) {
			return fmt.Sprintf("%s: error %+v, first decode %+v, body %s", other.name, other.err, aerr, body)
		}
		if !reflect.DeepEqual(req, other.req) {
			return fmt.Sprintf("%s: request %+v, first decode %+v, body %s", other.name, other.req, req, body)
		}
		if req == nil {
			continue
		}
		if a, b := req.conversation(), other.req.conversation(); !reflect.DeepEqual(a, b) {
			return fmt.Sprintf("%s: conversation %+v, first decode %+v, body %s", other.name, b, a, body)
		}
		for _, strict := range []bool{false, true} {
			env := &rules.Env{Options: rules.Options{StrictRoles: strict}}
			if a, b := rules.Run(catalog(), req, env), rules.Run(catalog(), other.req, env); !reflect.DeepEqual(a, b) {
				return fmt.Sprintf("%s: violations %+v, first decode %+v, body %s", other.name, b, a, body)
			}
		}
	}
	return ""
}

// TestMemoMatchesFreshDecode runs the comparison on the rule cases' bodies
// (setup requests included), the fuzz seeds' shapes and the benchmark
// bodies, strict and lenient, as Messages and count_tokens bodies, each
// twice so that the second decode is served by the memos.
func TestMemoMatchesFreshDecode(t *testing.T) {
	for _, b := range memoTestBodies(t) {
		for _, lenient := range []bool{false, true} {
			for _, count := range []bool{false, true} {
				for range 2 {
					req, aerr := decodeThrough(memos, []byte(b), lenient, count)
					if diff := memoDiff([]byte(b), lenient, count, req, aerr); diff != "" {
						t.Fatal(diff)
					}
				}
			}
		}
	}
}

// memoTestBodies are the bodies the memo tests compare: the rule cases'
// (setup requests included), the benchmark bodies and memoEdgeBodies.
func memoTestBodies(tb testing.TB) []string {
	tb.Helper()
	var bodies []string
	for _, c := range RuleCases() {
		bodies = append(bodies, string(c.Bad), string(c.Good))
		for _, s := range c.Setup {
			bodies = append(bodies, string(s))
		}
	}
	for _, turn := range []string{"call", "result"} {
		raw, err := os.ReadFile(filepath.Join("..", "benchmarks", "testdata", "anthropic."+turn+".json"))
		if err != nil {
			tb.Fatal(err)
		}
		bodies = append(bodies, string(raw))
	}
	return append(bodies, memoEdgeBodies...)
}

// FuzzMemoDecodesAsFresh: any body, JSON or not, as a Messages or a
// count_tokens body, strict or lenient, decodes through the process's
// warm memos (twice, so the second finds what the first kept) and through
// empty ones to exactly what it decodes to without any memo: the request,
// the error, the conversation and what the rules say of it (memoDiff).
// The memos are shared by every input a fuzz process runs, so a value one
// body put there is found by the next.
func FuzzMemoDecodesAsFresh(f *testing.F) {
	// One seed a body, the flags taken in turn: the fuzzer flips them
	// itself, and four seeds a body took make fuzz-short's whole 5 s to
	// gather coverage.
	for i, b := range memoTestBodies(f) {
		f.Add([]byte(b), i%2 == 1, i/2%2 == 1)
	}
	f.Fuzz(func(t *testing.T, body []byte, lenient, countTokens bool) {
		req, aerr := decodeThrough(nil, body, lenient, countTokens)
		for i := range 2 {
			if diff := memoDiff(body, lenient, countTokens, req, aerr); diff != "" {
				// memoDiff's "first decode" is the decode without a memo.
				t.Fatalf("body %q (lenient %v, countTokens %v), comparison %d: %s", body, lenient, countTokens, i+1, diff)
			}
		}
	})
}

// memoEdgeBodies are messages whose bytes are easy to misread: brackets
// and escaped quotes inside strings, whitespace around values, and faults
// in remembered neighbours (a message with an unknown member, a duplicate
// member, a wrong type before a syntax error).
var memoEdgeBodies = []string{
	`{"model":"m","max_tokens":8,"messages":[ {"role":"user","content":"a}\"{[b\\"} , {"role":"assistant","content":[{"type":"text","text":"]}"}]} ]}`,
	`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"a}\"{[b\\"},{"role":"user","content":"x","extra":1}]}`,
	`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"a}\"{[b\\"},{"role":"user","content":"x","content":"y"}]}`,
	`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"a}\"{[b\\"},{"role":5,"content":[{"type":"text","text":"x",}]}]}`,
	`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"a}\"{[b\\"},{"role":"user","content":[{"type":"text","text":"x"}`,
	`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"a}\"{[b\\"},"hi",null,{"role":"user","content":"\u00e9"}]}`,
	"{\"model\":\"m\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":\"a}\\\"{[b\\\\\"}\n,\t{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{\"k\":[1,{\"x\":\"}\"}]}}]}]}",
}

// TestMemoDecodesRepeatedMessagesOnce: a message is decoded once and then
// served from the memo; a message that differs by a byte is decoded, and
// a lenient decode or a failing one is not remembered.
func TestMemoDecodesRepeatedMessagesOnce(t *testing.T) {
	// Text no other test sends, so the memo has not seen these messages.
	nonce := fmt.Sprintf("memo-test-%p", t)
	msg := func(i int) string {
		return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"%s %d"}]}`, nonce, i)
	}
	body := func(msgs ...string) []byte {
		return []byte(`{"model":"m","max_tokens":8,"messages":[` + strings.Join(msgs, ",") + `]}`)
	}
	decoded := func(b []byte, lenient bool) int64 {
		t.Helper()
		before := messagesMemo.Misses()
		if _, aerr := decodeThrough(memos, b, lenient, false); aerr != nil {
			t.Fatalf("%s: %v", b, aerr.Message)
		}
		return messagesMemo.Misses() - before
	}
	if n := decoded(body(msg(1), msg(2), msg(3)), false); n != 3 {
		t.Fatalf("a first request decoded %d of its 3 messages, want 3", n)
	}
	if n := decoded(body(msg(1), msg(2), msg(3)), false); n != 0 {
		t.Fatalf("the same request again decoded %d messages, want 0", n)
	}
	if n := decoded(body(msg(1), msg(2), msg(3), msg(4)), false); n != 1 {
		t.Fatalf("the next turn decoded %d messages, want only the new one", n)
	}
	if n := decoded(body(msg(5)), true); n != 1 {
		t.Fatalf("a lenient request decoded %d messages, want 1", n)
	}
	if n := decoded(body(msg(5)), false); n != 1 {
		t.Fatalf("a message first seen leniently was decoded %d times strictly, want 1 (lenient decodes are not kept)", n)
	}
	bad := body(msg(6), `{"role":"user","content":"x","extra":1}`)
	for range 2 {
		if _, aerr := decodeThrough(memos, bad, false, false); aerr == nil || aerr.Message != "messages.1.extra: Extra inputs are not permitted" {
			t.Fatalf("unknown member: %+v", aerr)
		}
	}
	if n := decoded(body(`{"role":"user","content":"x","extra":1}`), true); n != 1 {
		t.Fatalf("a message that failed strictly was decoded %d times, want 1 (failures are not kept)", n)
	}
}

// TestArgumentsMemoSharesDecodedInputs: a tool_use input sent again is
// not decoded again; an input that is not an object is never remembered.
func TestArgumentsMemoSharesDecodedInputs(t *testing.T) {
	input := []byte(fmt.Sprintf(`{"city":"Paris","test":"%p"}`, t))
	first, again := arguments(input), arguments(append([]byte(nil), input...))
	if reflect.ValueOf(first).Pointer() != reflect.ValueOf(again).Pointer() || first["city"] != "Paris" {
		t.Fatalf("the same input decoded to two maps: %v, %v", first, again)
	}
	for _, in := range []string{`[1]`, ` null `, ``, `"x"`} {
		if _, ok := argumentsMemo.Get([]byte(in)); ok {
			t.Errorf("%q remembered", in)
		}
		arguments([]byte(in))
		if _, ok := argumentsMemo.Get([]byte(in)); ok {
			t.Errorf("%q remembered", in)
		}
	}
}
