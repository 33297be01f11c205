package refdriver

import (
	core "github.com/toolwire/toolwire/suite/refdriver"
	"testing"

	"github.com/tidwall/gjson"
)

// TestEveryRowMakesItsMistake: a row with no hook would run the honest
// loop under a mistake's name.
func TestEveryRowMakesItsMistake(t *testing.T) { core.CheckHooks(t, mistakes) }

func TestArgumentsAsObjectRewrite(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}]}`)
	got := lookup("arguments-as-object").Body(body)
	if v := gjson.GetBytes(got, "messages.1.tool_calls.0.function.arguments"); !v.IsObject() || v.Get("a").Int() != 1 {
		t.Errorf("got %s", got)
	}
}

func TestChatRewrites(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"x"},
		{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"1"}]}`)
	got := lookup("empty-tool-calls").Body(body)
	msgs := gjson.GetBytes(got, "messages").Array()
	if len(msgs) != 4 || msgs[1].Get("content").Str != "Checking." || !msgs[1].Get("tool_calls").IsArray() || len(msgs[1].Get("tool_calls").Array()) != 0 ||
		msgs[2].Get("content").Type != gjson.Null || len(msgs[2].Get("tool_calls").Array()) != 1 {
		t.Errorf("empty-tool-calls: %s", got)
	}
	got = lookup("omit-tool-call-type").Body(body)
	if gjson.GetBytes(got, "messages.1.tool_calls.0.type").Exists() || !gjson.GetBytes(got, "messages.1.tool_calls.0.id").Exists() {
		t.Errorf("omit-tool-call-type: %s", got)
	}
	if got := lookup("omit-model").Body(body); gjson.GetBytes(got, "model").Exists() {
		t.Errorf("omit-model: %s", got)
	}
	parallel := []byte(`{"messages":[{"role":"user","content":"x"},
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"1"},{"role":"tool","tool_call_id":"c2","content":"2"}]}`)
	got = lookup("drop-last-call").Body(parallel)
	if n := len(gjson.GetBytes(got, "messages.1.tool_calls").Array()); n != 1 || len(gjson.GetBytes(got, "messages").Array()) != 3 {
		t.Errorf("drop-last-call: %s", got)
	}
	got = lookup("duplicate-result").Body(parallel)
	if msgs := gjson.GetBytes(got, "messages").Array(); len(msgs) != 5 || msgs[3].Get("tool_call_id").Str != "c1" {
		t.Errorf("duplicate-result: %s", got)
	}
}
