package gemini

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// encodeOriginal is Encode as it was before the answer was written by
// hand: encoding/json over GenerateContentResponse. It is the reference
// the new Encode is compared with, byte for byte.
func (d *Dialect) encodeOriginal(x *dialect.Exchange, req any, c *conv.Conversation, reply *model.Reply) {
	r, _ := req.(*Request)
	if r == nil {
		r = &Request{Model: c.Model}
	}
	texts, calls := d.replyParts(x, reply)
	base := GenerateContentResponse{ModelVersion: r.Model, ResponseID: x.IDs().Next("", responseIDLength)}
	prompt := promptTokensReference(r)
	usage := func(outBytes int) UsageMetadata {
		out := tokens(outBytes)
		return UsageMetadata{PromptTokenCount: prompt, CandidatesTokenCount: out, TotalTokenCount: prompt + out,
			PromptTokensDetails: []ModalityCount{{Modality: "TEXT", TokenCount: prompt}}}
	}
	chunk := func(parts []OutPart, last bool, outBytes int) GenerateContentResponse {
		g := base
		cand := Candidate{Content: OutContent{Parts: parts, Role: roleModel}}
		if last {
			cand.FinishReason = finishStop
			if len(calls) > 0 {
				cand.FinishMessage = finishMessageCalls
			}
		}
		g.Candidates = []Candidate{cand}
		g.UsageMetadata = usage(outBytes)
		return g
	}

	if !c.Stream {
		var parts []OutPart
		if texts != "" || len(calls) == 0 {
			parts = append(parts, textPart(texts))
		}
		parts = append(parts, calls...)
		x.JSON(http.StatusOK, chunk(parts, true, len(texts)+callBytesOriginal(calls)))
		return
	}

	// Streamed: text in fragments, then the calls whole in one chunk that
	// ends the turn (the Gemini API never splits call arguments).
	var chunks []GenerateContentResponse
	sent := 0
	frags := wire.Fragments(texts, x.Stream.FragmentSize)
	for i, f := range frags {
		sent += len(f)
		chunks = append(chunks, chunk([]OutPart{textPart(f)}, i == len(frags)-1 && len(calls) == 0, sent))
	}
	if len(calls) > 0 {
		chunks = append(chunks, chunk(calls, true, sent+callBytesOriginal(calls)))
	} else if len(frags) == 0 {
		chunks = append(chunks, chunk([]OutPart{textPart("")}, true, 0))
	}
	if !r.SSE {
		// Without alt=sse the API streams one JSON array of the chunks.
		x.JSON(http.StatusOK, chunks)
		return
	}
	s := x.SSE("\r\n\r\n")
	for _, ch := range chunks {
		if err := s.Event("", ch); err != nil {
			return
		}
	}
}

// callBytesOriginal is callBytes as encodeOriginal used it.
func callBytesOriginal(calls []OutPart) int {
	n := 0
	for _, c := range calls {
		b, _ := json.Marshal(c.FunctionCall)
		n += len(b)
	}
	return n
}

// encodeOutcome is everything an answer leaves: status, headers, body,
// and what the exchange keeps for the journal.
type encodeOutcome struct {
	Status  int
	Header  http.Header
	Body    string
	JStatus int
	JBody   string
	Events  []session.Event
}

func runEncode(t *testing.T, encode func(*dialect.Exchange), path string, sessionKey string, fragment int) encodeOutcome {
	t.Helper()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, path, nil)
	sess := session.NewStore(session.DefaultLimits()).Get(sessionKey)
	x := &dialect.Exchange{W: rec, R: r, Session: sess, Stream: wire.StreamConfig{FragmentSize: fragment}}
	encode(x)
	st, body, evs := x.Result()
	return encodeOutcome{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String(), JStatus: st, JBody: string(body), Events: evs}
}

// encodeCase is one answer to compare: the reply's text and calls, and
// how the request asked for it.
type encodeCase struct {
	texts    []string
	calls    []*conv.Call
	stream   bool
	sse      bool
	fragment int
	model    string
	emitIDs  bool
	req      *Request // nil: Encode gets no *Request
}

func (ec encodeCase) run(t *testing.T) {
	t.Helper()
	var parts []conv.Part
	for _, s := range ec.texts {
		parts = append(parts, conv.Part{Kind: conv.KindText, Text: s})
	}
	for _, c := range ec.calls {
		cp := *c
		parts = append(parts, conv.Part{Kind: conv.KindCall, Call: &cp})
	}
	reply := &model.Reply{Turn: conv.Turn{Role: conv.Assistant, Parts: parts}}
	c := &conv.Conversation{Dialect: conv.Gemini, Model: ec.model, Stream: ec.stream}
	var req any
	if ec.req != nil {
		r := *ec.req
		r.Model, r.SSE = ec.model, ec.sse
		req = &r
	}
	// The path is not read by Encode; the model name may not fit in one.
	const path = "/v1beta/models/m:generateContent"
	d := &Dialect{EmitCallIDs: ec.emitIDs}
	key := fmt.Sprintf("k%d", len(ec.texts))
	got := runEncode(t, func(x *dialect.Exchange) { d.Encode(x, req, c, reply) }, path, key, ec.fragment)
	want := runEncode(t, func(x *dialect.Exchange) { d.encodeOriginal(x, req, c, reply) }, path, key, ec.fragment)
	if got.Status != want.Status || got.Body != want.Body || got.JStatus != want.JStatus || got.JBody != want.JBody {
		t.Fatalf("%+v:\n got %d %s\nwant %d %s", ec, got.Status, got.Body, want.Status, want.Body)
	}
	if fmt.Sprint(got.Header) != fmt.Sprint(want.Header) {
		t.Fatalf("%+v: headers %v, want %v", ec, got.Header, want.Header)
	}
	if len(got.Events) != len(want.Events) {
		t.Fatalf("%+v: %d events, want %d", ec, len(got.Events), len(want.Events))
	}
	for i := range got.Events {
		if got.Events[i].Event != want.Events[i].Event || string(got.Events[i].Data) != string(want.Events[i].Data) {
			t.Fatalf("%+v: event %d = %s, want %s", ec, i, got.Events[i].Data, want.Events[i].Data)
		}
	}
}

// hardText exercises every escape encoding/json writes.
const hardText = "It is 18\u00b0C <b>&</b> \"quoted\" \\ \b\f\n\r\t\x00\x1f\x7f \u2028\u2029 \xff\xe2\x80 日本語 😀"

func encodeCases() []encodeCase {
	weather := &conv.Call{Name: "get_weather", Arguments: map[string]any{"city": "Paris", "units": "celsius"}}
	odd := &conv.Call{ID: "call-<1>", Name: "f&g", ThoughtSignature: "sig/+=", Arguments: map[string]any{
		"s": hardText, "n": 1e21, "m": 1e-7, "z": math.Copysign(0, -1), "i": 42, "l": []any{1.5, nil, true, "x", map[string]any{"b": 1, "a": 2}},
	}}
	unsigned := &conv.Call{Name: "h", ThoughtSignature: "-"}
	nan := &conv.Call{Name: "nan", Arguments: map[string]any{"x": math.NaN()}}
	tool := &Request{Contents: []Content{{Role: "user", Parts: []Part{{Text: ptr(hardText)}}}},
		Tools: []Tool{{FunctionDeclarations: []FunctionDeclaration{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}}}}
	var cases []encodeCase
	for _, stream := range []bool{false, true} {
		for _, sse := range []bool{false, true} {
			for _, texts := range [][]string{nil, {""}, {"Hello"}, {hardText, " and more"}, {strings.Repeat("long text ", 40)}} {
				for _, calls := range [][]*conv.Call{nil, {weather}, {odd, weather}, {unsigned, weather}, {nan}, {weather, nan}} {
					for _, fragment := range []int{0, 1, 7} {
						for _, emit := range []bool{false, true} {
							cases = append(cases, encodeCase{texts: texts, calls: calls, stream: stream, sse: sse, fragment: fragment,
								model: "gemini-2.5-flash", emitIDs: emit, req: tool})
						}
					}
				}
			}
		}
	}
	cases = append(cases,
		encodeCase{texts: []string{"x"}, model: "gemini-3-pro-preview<&>"},
		encodeCase{texts: []string{"x"}, calls: []*conv.Call{weather}, stream: true, sse: true, model: "m", req: &Request{}},
	)
	return cases
}

func ptr[T any](v T) *T { return &v }

// TestEncodeMatchesOriginal compares every answer shape with the original
// encoding/json Encode: status, headers, body and journal, byte for byte.
func TestEncodeMatchesOriginal(t *testing.T) {
	for _, ec := range encodeCases() {
		ec.run(t)
	}
}

// FuzzEncodeText compares answers with arbitrary text, call names, ids
// and argument strings.
func FuzzEncodeText(f *testing.F) {
	f.Add("Hello", "get_weather", "", "Paris", uint8(0))
	f.Add(hardText, "f<&>", "id\u2028", "\xff", uint8(7))
	f.Fuzz(func(t *testing.T, text, name, id, arg string, mode uint8) {
		call := &conv.Call{ID: id, Name: name, Arguments: map[string]any{arg: arg, "n": float64(len(arg)) / 7}}
		ec := encodeCase{texts: []string{text}, stream: mode&1 != 0, sse: mode&2 != 0, fragment: int(mode >> 3), model: name, emitIDs: mode&4 != 0,
			req: &Request{Contents: []Content{{Parts: []Part{{Text: &text}}}}}}
		if len(name)%2 == 0 {
			ec.calls = []*conv.Call{call}
		}
		ec.run(t)
	})
}

// mintSignatureOriginal is mintSignature before its buffers moved to the
// stack.
func mintSignatureOriginal(ids *wire.IDs) string {
	payload := ids.Next("", signaturePayloadSize)
	b := append([]byte{0x0a, byte(len(payload))}, payload...)
	return base64.StdEncoding.EncodeToString(b)
}

func TestMintSignatureMatchesOriginal(t *testing.T) {
	for _, seed := range []string{"", "k", "a-much-longer-session-key-than-usual"} {
		a, b := wire.NewIDs(seed), wire.NewIDs(seed)
		for range 200 {
			if got, want := mintSignature(a), mintSignatureOriginal(b); got != want {
				t.Fatalf("seed %q: %q, want %q", seed, got, want)
			}
		}
	}
}

// TestAppendJSONMatchesMarshal holds the hand-written answer to
// json.Marshal of the same chunk as a GenerateContentResponse (the live
// structs, so a field added to them shows up here).
func TestAppendJSONMatchesMarshal(t *testing.T) {
	call := OutPart{FunctionCall: &OutCall{ID: "i<", Name: "f&", Args: map[string]any{"a": []any{1.5, "x"}}}, ThoughtSignature: "s"}
	bare := OutPart{FunctionCall: &OutCall{Name: "g", Args: map[string]any{}}}
	if !encodeArgs([]OutPart{call, bare}) {
		t.Fatal("encodeArgs failed")
	}
	for _, head := range []responseHead{{}, {model: "m<>", id: "r", prompt: 12, calls: true}} {
		for _, ch := range []chunk{
			{}, {hasText: true}, {text: hardText, hasText: true, last: true, outBytes: 99},
			{calls: []OutPart{call}, last: true}, {text: "t", hasText: true, calls: []OutPart{call, bare}, last: true, outBytes: 3},
		} {
			want, err := json.Marshal(head.message(ch))
			if err != nil {
				t.Fatal(err)
			}
			if got := head.appendJSON(nil, ch); string(got) != string(want) {
				t.Errorf("%+v %+v:\n got %s\nwant %s", head, ch, got, want)
			}
		}
	}
}
