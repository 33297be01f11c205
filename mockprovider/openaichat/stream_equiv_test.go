package openaichat

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// FuzzStreamMatchesReference holds streamOutput, which writes each chunk
// by hand, to the json.Marshal-based stream it replaced: the same bytes on
// the wire and the same events in the journal, for text, calls and
// refusals in any combination, with and without include_usage, at any
// fragment size, and when the client goes away after a few events.
func FuzzStreamMatchesReference(f *testing.F) {
	f.Add("chatcmpl-1", int64(1700000000), "gpt-4.1", "fp_1", "Hello <world> & all", true, "", false, "call_1", "get_weather", `{"city":"Paris"}`, 1, "tool_calls", true, 0, -1)
	f.Add("", int64(0), "m", "", "", false, "I can't \u2028 help", true, "", "", "", 0, "stop", false, 5, -1)
	f.Add("x", int64(-3), "<m>", "f", "caf\xc3\xa9 \xff", true, "r", true, "c", "n", "\x00\"", 3, "", true, 1, 4)
	f.Add("x", int64(9), "m", "f", "", false, "", false, "", "", "", 0, "stop", true, 0, 0)
	f.Fuzz(func(t *testing.T, id string, created int64, modelName, fp, text string, hasText bool, refusal string, hasRefusal bool,
		callID, callName, args string, calls int, finish string, includeUsage bool, fragment int, failAfter int) {
		o := &output{ID: id, Created: created, Model: modelName, Fingerprint: fp, Text: text, HasText: hasText, Refusal: refusal, HasRefusal: hasRefusal, Finish: finish,
			Usage: usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10}}
		for i := range calls % 4 {
			o.Calls = append(o.Calls, outCall{ID: callID[:min(i, len(callID))], Name: callName[min(i, len(callName)):], Arguments: args})
		}
		r := &Request{Stream: true, IncludeUsage: includeUsage, StreamOptionsSent: includeUsage}
		run := func(stream func(*dialect.Exchange, *Request, *output)) ([]byte, any) {
			rec := httptest.NewRecorder()
			x := &dialect.Exchange{W: rec, R: httptest.NewRequest(http.MethodPost, "/v1/chat/completions", nil), Stream: wire.StreamConfig{FragmentSize: fragment % 20}}
			if failAfter >= 0 {
				x.StreamHook = func(_ *wire.SSE, sent int) error {
					if sent >= failAfter%8 {
						return errors.New("client gone")
					}
					return nil
				}
			}
			stream(x, r, o)
			_, _, events := x.Result()
			return rec.Body.Bytes(), events
		}
		got, gotEvents := run(streamOutput)
		want, wantEvents := run(refStreamOutput)
		if !bytes.Equal(got, want) {
			t.Fatalf("stream\n got %s\nwant %s", got, want)
		}
		if !reflect.DeepEqual(gotEvents, wantEvents) {
			t.Fatalf("journal events differ\n got %+v\nwant %+v", gotEvents, wantEvents)
		}
	})
}
