package openairesp

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The tests below hold decoding and rendering to simple reference forms.

// echoBodies send the members echoed as sent in every way: absent, null,
// spaced, escaped names, hosted tools, null tools.
var echoBodies = []string{
	`{"model":"gpt-4.1","input":"Hi"}`,
	`{"model":"gpt-4.1","input":"Hi","instructions":null,"max_output_tokens":null,"metadata":null,"reasoning":null,"text":null,"tool_choice":null,"tools":null}`,
	`{"model":"gpt-4.1","input":"Hi","instructions":"Be \"brief\".","max_output_tokens":100,"metadata":{ "a" : "b" },"reasoning":{"effort":"low"},"text":{ "verbosity":"low" },"tool_choice":"auto"}`,
	`{ "tool_choice" : { "type" : "function", "name" : "f" }, "model":"gpt-4.1", "input":"Hi", "tools" : [ {"type":"function","name":"f","parameters":{ "type": "object" }}, { "type" : "web_search" } ] }`,
	`{"model":"gpt-4.1","input":"Hi","instruc\u0074ions":"x","tools":[null,{"type":"web_search_preview","search_context_size":"low"}],"tool_choice":{"type":"web_search_preview"}}`,
	`{"model":"gpt-4.1","input":"Hi","metadata":{},"reasoning":{},"text":{},"tools":[],"tool_choice":"none"}`,
	`{"model":"gpt-4.1","input":"Hi","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"f"}]}}`,
}

// referenceEchoes fills the echoed members as the walk over every member
// did before, each tool copied from its own split of the array.
func referenceEchoes(r *Request, body []byte) {
	var tools jsontext.Value
	members(body, func(name string, v jsontext.Value) {
		switch name {
		case "instructions":
			r.Instructions = v
		case "max_output_tokens":
			r.MaxOutputTokens = v
		case "metadata":
			r.Metadata = v
		case "reasoning":
			r.Reasoning = v
		case "text":
			r.Text = v
		case "tool_choice":
			r.ToolChoice = v
		case "tools":
			tools = v
		}
	})
	r.ToolsRaw = nil
	if tools.Kind() == '[' {
		dec := jsontext.NewDecoder(bytes.NewReader(tools))
		_, _ = dec.ReadToken()
		for dec.PeekKind() != ']' {
			e, err := dec.ReadValue()
			if err != nil {
				break
			}
			r.ToolsRaw = append(r.ToolsRaw, bytes.Clone(e))
		}
	}
	for i, t := range r.W.Tools {
		r.Tools[i] = Tool{Type: typeOf(r.ToolsRaw, i)}
		if f := t.OfFunction; f != nil {
			r.Tools[i] = Tool{Type: "function", Name: f.Name, Description: f.Description, Parameters: f.Parameters, Strict: f.Strict}
		}
	}
}

// members calls f with each member of the object raw, in order.
func members(raw []byte, f func(name string, v jsontext.Value)) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return
	}
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return
		}
		name := tok.String()
		v, err := dec.ReadValue()
		if err != nil {
			return
		}
		f(name, bytes.Clone(v))
	}
}

// TestEchoedMembersAsTheFullWalk: walking only for the members sent
// renders and checks every body as walking all of them did.
func TestEchoedMembersAsTheFullWalk(t *testing.T) {
	d := New()
	items := []planned{{kind: "function_call", id: "fc_1", callID: "call_1", name: "f", args: "{}"}}
	for _, body := range echoBodies {
		now, aerr := decodeRequest(&dialect.Exchange{}, []byte(body))
		if aerr != nil {
			t.Fatalf("%s: %v", body, aerr)
		}
		ref, _ := decodeRequest(&dialect.Exchange{}, []byte(body))
		referenceEchoes(ref, []byte(body))
		output := []jsontext.Value{marshal(outputItem(&items[0], true))}
		for _, f := range []form{{status: "completed"}, {status: "in_progress"}} {
			got := marshal(responseOf(now, "resp_1", 1, output, f))
			want := marshal(responseOf(ref, "resp_1", 1, output, f))
			if !bytes.Equal(got, want) {
				t.Errorf("%s (%+v):\n got %s\nwant %s", body, f, got, want)
			}
		}
		if got, want := rules.Run(d.Rules(), now, &rules.Env{}), rules.Run(d.Rules(), ref, &rules.Env{}); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: violations %v, want %v", body, got, want)
		}
		if !reflect.DeepEqual(now.ToolsRaw, ref.ToolsRaw) && !(len(now.ToolsRaw) == 2 && ref.ToolsRaw[0].Kind() == 'n') {
			t.Errorf("%s: tools as sent %q, want %q", body, now.ToolsRaw, ref.ToolsRaw)
		}
		if !reflect.DeepEqual(now.conversation(), ref.conversation()) {
			t.Errorf("%s: conversation differs", body)
		}
	}
}

// referenceItemOf lifts an item's members with its type read again from
// its bytes, as before the variant said it.
func referenceItemOf(u *ResponseInputItemUnionParam, index int) Item {
	it := itemOf(u, index)
	it.Typed = false
	typ, typed := typeMember(u.raw)
	it.Typed = typed
	switch {
	case u.OfMessage != nil && !typed && u.OfMessage.Role == "" && !u.OfMessage.Content.Present() && str(u.OfMessage.ID) != "":
		it.Type = "item_reference"
	case u.OfMessage != nil:
		it.Type = "message"
	case u.OfItemReference != nil:
		it.Type = "item_reference"
	default:
		it.Type = typ
	}
	return it
}

// TestItemTypeFromVariant: the type an item's variant gives is the one its
// bytes hold, for every item the rule cases and the loops send.
func TestItemTypeFromVariant(t *testing.T) {
	var bodies [][]byte
	for _, c := range RuleCases() {
		for _, b := range append(c.Setup, c.Bad, c.Good) {
			bodies = append(bodies, b)
		}
	}
	bodies = append(bodies, []byte(`{"model":"gpt-4.1","input":[{"id":"msg_1"},{"type":"message","id":"msg_2","role":"user","content":"x"},{"type":"mess\u0061ge","role":"user","content":"y"},{"role":"user","content":"z","type":"message"},
		{"type":"compaction","encrypted_content":"abc"},{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"x"}},{"type":"item_reference","id":"msg_1"},{"type":"reasoning","id":"rs_1","summary":[]}]}`))
	n := 0
	for _, body := range bodies {
		var w ResponseNewParams
		if _, err := wirejson.Decode(body, &w, wirejson.Options{Lenient: true}); err != nil {
			continue
		}
		for i := range w.Input.OfInputItemList {
			u := &w.Input.OfInputItemList[i]
			if got, want := itemOf(u, i), referenceItemOf(u, i); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: item %d lifted as %+v, want %+v", u.raw, i, got, want)
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d items compared", n)
	}
}

// TestStoredBookkeeping: each output item is stored under its key, with
// its own bytes when the response is stored, and the response with its
// effective items (prior, input, output); with store:false only the
// markers that the items were issued.
func TestStoredBookkeeping(t *testing.T) {
	items := []planned{{kind: "reasoning", id: "rs_1"}, {kind: "function_call", id: "fc_1", callID: "call_1", name: "f", args: "{}"}}
	for _, store := range []string{"true", "false"} {
		sess := session.NewStore(session.DefaultLimits()).Get("sk-book")
		x := &dialect.Exchange{Session: sess}
		req, aerr := decodeRequest(x, []byte(`{"model":"gpt-5","store":`+store+`,"input":[{"role":"user","content":"Hi"},{"type":"function_call_output","call_id":"c","output":"x"}]}`))
		if aerr != nil {
			t.Fatal(aerr)
		}
		done := completedResponse(nil, req, "resp_1", 1, items)
		New().remember(x, req, "resp_1", done, items)
		stored := store == "true"
		for i, it := range items {
			e, ok := storedResponse(sess, "item:"+it.id)
			switch {
			case !ok || e.ID != "item:"+it.id:
				t.Errorf("store %s: item %s not kept (%v)", store, it.id, e)
			case stored && (len(e.Items()) != 1 || !bytes.Equal(e.Items()[0], done.item(i))):
				t.Errorf("store %s: item %s kept as %q", store, it.id, e.Items())
			case !stored && e.Items() != nil:
				t.Errorf("store %s: item %s kept bytes %q", store, it.id, e.Items())
			}
		}
		e, ok := storedResponse(sess, "resp_1")
		if ok != stored {
			t.Fatalf("store %s: response kept %v", store, ok)
		}
		if !stored {
			continue
		}
		want := []json.RawMessage{json.RawMessage(req.Items[0].Raw), json.RawMessage(req.Items[1].Raw), done.item(0), done.item(1)}
		if all := e.Items(); !bytes.Equal(e.Body, done.body) || !reflect.DeepEqual(all, want) || cap(all) != len(all) {
			t.Errorf("response kept with items %q, want %q", all, want)
		}
	}
}

// TestStreamEndsWithTheStoredResponse: the response the stream's last
// event carries is byte for byte the one stored and answered without a
// stream, and the output items announced done are the stored items.
func TestStreamEndsWithTheStoredResponse(t *testing.T) {
	itemSets := [][]planned{
		{{kind: "function_call", id: "fc_1", callID: "call_1", name: "f", args: `{"city":"Paris"}`}},
		{{kind: "reasoning", id: "rs_1", summary: "think"}, {kind: "message", id: "msg_1", text: "Hello there, a longer text than a fragment.", phase: "final_answer", incomplete: true}},
		nil,
	}
	bodies := append(append([]string{}, echoBodies...), loopTurnsInternal...)
	for _, body := range bodies {
		req, aerr := decodeRequest(&dialect.Exchange{}, []byte(body))
		if aerr != nil {
			t.Fatalf("%s: %v", body, aerr)
		}
		for _, items := range itemSets {
			done := completedResponse(nil, req, "resp_1", 1, items)
			got := httptest.NewRecorder()
			if err := writeEvents(wire.NewSSE(got, wire.StreamConfig{}, ""), req, "resp_1", 1, items, done, 0, func() {}); err != nil {
				t.Fatal(err)
			}
			var last struct {
				Response json.RawMessage `json:"response"`
			}
			var doneItems []json.RawMessage
			for _, line := range strings.Split(got.Body.String(), "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok {
					continue
				}
				var ev struct {
					Type string          `json:"type"`
					Item json.RawMessage `json:"item"`
				}
				if err := json.Unmarshal([]byte(data), &ev); err != nil {
					t.Fatalf("%s: event %s: %v", body, data, err)
				}
				if ev.Type == "response.output_item.done" {
					doneItems = append(doneItems, ev.Item)
				}
				_ = json.Unmarshal([]byte(data), &last)
			}
			if !bytes.Equal(last.Response, done.body) {
				t.Errorf("%s:\nstream ends with %s\n   stored is %s", body, last.Response, done.body)
			}
			for i, it := range doneItems {
				if !bytes.Equal(it, done.item(i)) {
					t.Errorf("%s: item %d streamed as %s, stored as %s", body, i, it, done.item(i))
				}
			}
		}
	}
}

// loopTurnsInternal are loop bodies, compact and spaced.
var loopTurnsInternal = []string{
	`{"model":"gpt-4.1","tools":[{"type":"function","name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City name"}},"required":["city"]}}],"input":[{"role":"user","content":"What is the weather in Paris?"}]}`,
	`{"model":"gpt-4.1","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object", "properties":{}}}],"input":"Hi"}`,
	`{"model":"gpt-4.1","tools":[{"type":"web_search","search_context_size":"low"},{"type":"function","name":"f","parameters":{"type":"object","properties":{}}}],"instructions":"a b","input":"Hi"}`,
	`{"model":"gpt-4.1","tools":[{"type":"web_search", "search_context_size":"low"}],"input":"Hi"}`,
}
