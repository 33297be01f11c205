package refdriver

import (
	core "github.com/toolwire/toolwire/suite/refdriver"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
)

// TestEveryRowMakesItsMistake: a row with no hook would run the honest
// loop under a mistake's name.
func TestEveryRowMakesItsMistake(t *testing.T) { core.CheckHooks(t, mistakes) }

// TestReplayHooks: the mistakes that change which output items go back,
// and how, against the honest replay (every item, in order, by
// reference when asked).
func TestReplayHooks(t *testing.T) {
	items := func() []item {
		return []item{{typ: "reasoning", id: "rs_1", byReference: true}, {typ: "function_call", id: "fc_1", byReference: true}, {typ: "message", id: "msg_1", byReference: true}}
	}
	types := func(its []item) (out []string) {
		for _, it := range its {
			out = append(out, it.typ)
		}
		return out
	}
	if got := types(lookup("drop-reasoning").replay(items())); !reflect.DeepEqual(got, []string{"function_call", "message"}) {
		t.Errorf("drop-reasoning: %v", got)
	}
	if got := types(lookup("reasoning-without-following-item").replay(items())); !reflect.DeepEqual(got, []string{"function_call", "message", "reasoning"}) {
		t.Errorf("reasoning-without-following-item: %v", got)
	}
	if got := types(lookup("results-as-user-text").replay(items())); !reflect.DeepEqual(got, []string{"message"}) {
		t.Errorf("results-as-user-text: %v", got)
	}
	for _, it := range lookup("calls-replayed-in-full").replay(items()) {
		if it.byReference == (it.typ == "function_call") {
			t.Errorf("calls-replayed-in-full: %+v", it)
		}
	}
	for _, it := range lookup("item-references-ignored").replay(items()) {
		if it.byReference {
			t.Errorf("item-references-ignored: %+v", it)
		}
	}
	if ref := (item{typ: "message", id: "msg_1", raw: `{"type":"message"}`, byReference: true}).param(); gjson.Get(string(mustMarshal(t, ref)), "type").Str != "item_reference" {
		t.Errorf("by reference: %s", mustMarshal(t, ref))
	}
}

func mustMarshal(t *testing.T, v interface{ MarshalJSON() ([]byte, error) }) []byte {
	t.Helper()
	b, err := v.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestResponsesRewrites(t *testing.T) {
	body := []byte(`{"input":[{"role":"user","content":"x"},
		{"type":"function_call","id":"fc_1","call_id":"call_1","name":"f","arguments":"{}"},
		{"type":"function_call","id":"fc_2","call_id":"call_2","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":"1"},
		{"type":"function_call_output","call_id":"call_2","output":"2"}]}`)
	got := lookup("drop-last-call").Body(body)
	if items := gjson.GetBytes(got, "input").Array(); len(items) != 3 || items[1].Get("call_id").Str != "call_1" || items[2].Get("call_id").Str != "call_1" {
		t.Errorf("drop-last-call: %s", got)
	}
	got = lookup("duplicate-item-ids").Body(body)
	if gjson.GetBytes(got, "input.3.id").Str != "fc_1" || gjson.GetBytes(got, "input.4.id").Str != "fc_2" {
		t.Errorf("duplicate-item-ids: %s", got)
	}
	got = lookup("omit-function-call-name").Body(body)
	if gjson.GetBytes(got, "input.1.name").Exists() || !gjson.GetBytes(got, "input.1.call_id").Exists() {
		t.Errorf("omit-function-call-name: %s", got)
	}
}
