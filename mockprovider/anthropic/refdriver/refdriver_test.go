package refdriver

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/tidwall/gjson"

	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// TestEveryRowMakesItsMistake: a row with no hook would run the honest
// loop under a mistake's name.
func TestEveryRowMakesItsMistake(t *testing.T) { core.CheckHooks(t, mistakes) }

func TestSameToolUseIDs(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"x"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_a","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"1"}]},
		{"role":"assistant","content":[{"type":"text","text":"again"},{"type":"tool_use","id":"toolu_b","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":"2"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_c","name":"f","input":{}},{"type":"tool_use","id":"toolu_d","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_c","content":"3"},{"type":"tool_result","tool_use_id":"toolu_d","content":"4"}]}]}`)
	got := sameToolUseIDs(body)
	for _, p := range []string{"messages.1.content.0.id", "messages.2.content.0.tool_use_id", "messages.3.content.1.id", "messages.4.content.0.tool_use_id",
		"messages.5.content.0.id", "messages.5.content.1.id", "messages.6.content.0.tool_use_id", "messages.6.content.1.tool_use_id"} {
		if v := gjson.GetBytes(got, p).Str; v != "toolu_01" {
			t.Errorf("%s = %q, want toolu_01 (one id a turn)", p, v)
		}
	}
}

func TestBlockRewrites(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"x"},
		{"role":"assistant","content":[{"type":"text","text":"Let me look."},{"type":"tool_use","id":"t1","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1"}]}]}`)
	got := lookup("text-after-tool-use").Body(body)
	if a, b := gjson.GetBytes(got, "messages.1.content.0.type").Str, gjson.GetBytes(got, "messages.1.content.1.type").Str; a != "tool_use" || b != "text" {
		t.Errorf("text-after-tool-use: blocks %s, %s", a, b)
	}
	got = lookup("drop-tool-use-blocks").Body(body)
	if n := len(gjson.GetBytes(got, "messages.1.content").Array()); n != 1 || !gjson.GetBytes(got, "messages.2.content.0.tool_use_id").Exists() {
		t.Errorf("drop-tool-use-blocks: %s", got)
	}
	got = lookup("drop-first-user-turn").Body(body)
	if r := gjson.GetBytes(got, "messages.0.role").Str; r != "assistant" || len(gjson.GetBytes(got, "messages").Array()) != 2 {
		t.Errorf("drop-first-user-turn: %s", got)
	}
}

// TestReplies: the mistakes in what follows a turn with calls, against
// the honest reply (the turn, then one user message of tool_result
// blocks, is_error on errors).
func TestReplies(t *testing.T) {
	callTurn := anthropic.NewAssistantMessage(anthropic.NewTextBlock("calling"))
	answers := []core.Answer{{ID: "t1", Result: task.CallToolResult{Content: []task.Content{{Type: "text", Text: "1"}}}},
		{ID: "t2", Result: task.ErrorResult("boom")}}
	send := func(brk core.Break) (msgs []gjson.Result, roles []string, sent bool) {
		reply, sent := lookup(brk).sendBack(callTurn, answers)
		for _, m := range reply {
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, gjson.ParseBytes(b))
			roles = append(roles, gjson.GetBytes(b, "role").Str)
		}
		return msgs, roles, sent
	}
	msgs, roles, sent := send("")
	if !sent || !reflect.DeepEqual(roles, []string{"assistant", "user"}) || len(msgs[1].Get("content").Array()) != 2 || !msgs[1].Get("content.1.is_error").Bool() {
		t.Errorf("honest: %v %v %v", roles, sent, msgs)
	}
	if _, roles, _ = send("split-results"); !reflect.DeepEqual(roles, []string{"assistant", "user", "user"}) {
		t.Errorf("split-results: %v", roles)
	}
	if _, roles, _ = send("drop-assistant-turn"); !reflect.DeepEqual(roles, []string{"user"}) {
		t.Errorf("drop-assistant-turn: %v", roles)
	}
	if msgs, _, sent = send("results-as-user-text"); sent || len(msgs) != 1 || msgs[0].Get("content.0.type").Str != "text" {
		t.Errorf("results-as-user-text: %v %v", msgs, sent)
	}
	if msgs, _, _ = send("text-before-tool-result"); msgs[1].Get("content.0.type").Str != "text" || msgs[1].Get("content.1.type").Str != "tool_result" {
		t.Errorf("text-before-tool-result: %v", msgs[1])
	}
	if msgs, _, _ = send("omit-is-error"); msgs[1].Get("content.1.is_error").Exists() {
		t.Errorf("omit-is-error: %v", msgs[1])
	}
}
