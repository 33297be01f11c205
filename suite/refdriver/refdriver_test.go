package refdriver

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/suite/task"
)

func TestMainFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"--list-breaks"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "swapped-ids") {
		t.Errorf("--list-breaks: %d %q", code, out.String())
	}
	if code := Main([]string{"--break", "nonsense"}, &out, &errb); code != 2 {
		t.Errorf("unknown break: exit %d", code)
	}
	t.Setenv(task.EnvTask, "")
	if code := Main(nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), "TOOLWIRE_TASK") {
		t.Errorf("no task: exit %d %q", code, errb.String())
	}
}

func TestBreaksAreDocumented(t *testing.T) {
	seen := map[Break]bool{}
	for _, b := range Breaks() {
		if b.Description == "" || seen[b.Name] {
			t.Errorf("break %q: duplicate or undocumented", b.Name)
		}
		seen[b.Name] = true
		if _, ok := LookupBreak(string(b.Name)); !ok {
			t.Errorf("LookupBreak(%q) failed", b.Name)
		}
	}
}

func TestArgumentsAsObjectRewrite(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}]}`)
	got := argumentsAsObject(body)
	if v := gjson.GetBytes(got, "messages.1.tool_calls.0.function.arguments"); !v.IsObject() || v.Get("a").Int() != 1 {
		t.Errorf("got %s", got)
	}
}

func TestResultConversions(t *testing.T) {
	r := task.CallToolResult{Content: []task.Content{{Type: "text", Text: "nope"}, {Type: "image", MimeType: "image/png", Data: "AA=="}}, IsError: true}
	if s := plainText(r, None); !strings.HasPrefix(s, "Error: nope") || !strings.Contains(s, "image/png") {
		t.Errorf("plainText = %q", s)
	}
	if s := plainText(r, OmitIsError); strings.HasPrefix(s, "Error") {
		t.Errorf("omit-is-error plainText = %q", s)
	}
	d := &Driver{}
	fr := d.geminiResponse(task.CallToolResult{StructuredContent: map[string]any{"n": 1.0}}, false)
	if fr.Response["n"] != 1.0 {
		t.Errorf("structured response = %v", fr.Response)
	}
	fr = d.geminiResponse(r, true)
	if _, ok := fr.Response["error"]; !ok {
		t.Errorf("error response = %v", fr.Response)
	}
	fr = (&Driver{Break: DuplicateRef}).geminiResponse(task.CallToolResult{Content: r.Content}, true)
	if len(fr.Parts) != 1 || fr.Parts[0].InlineData.DisplayName == "" || fr.Response["attachment_again"] == nil {
		t.Errorf("duplicate-ref response = %v parts %d", fr.Response, len(fr.Parts))
	}
}

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
	got := (&Driver{Break: TextAfterToolUse}).edit()(body)
	if a, b := gjson.GetBytes(got, "messages.1.content.0.type").Str, gjson.GetBytes(got, "messages.1.content.1.type").Str; a != "tool_use" || b != "text" {
		t.Errorf("text-after-tool-use: blocks %s, %s", a, b)
	}
	got = (&Driver{Break: DropToolUseBlocks}).edit()(body)
	if n := len(gjson.GetBytes(got, "messages.1.content").Array()); n != 1 || !gjson.GetBytes(got, "messages.2.content.0.tool_use_id").Exists() {
		t.Errorf("drop-tool-use-blocks: %s", got)
	}
	got = (&Driver{Break: DropFirstUserTurn}).edit()(body)
	if r := gjson.GetBytes(got, "messages.0.role").Str; r != "assistant" || len(gjson.GetBytes(got, "messages").Array()) != 2 {
		t.Errorf("drop-first-user-turn: %s", got)
	}
	first := []byte(`{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`)
	if got := (&Driver{Break: DropFirstUserTurn}).edit()(first); len(gjson.GetBytes(got, "contents").Array()) != 1 {
		t.Errorf("drop-first-user-turn emptied the first request: %s", got)
	}
}

func TestChatRewrites(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"x"},
		{"role":"assistant","content":"Checking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"1"}]}`)
	got := (&Driver{Break: EmptyToolCalls}).edit()(body)
	msgs := gjson.GetBytes(got, "messages").Array()
	if len(msgs) != 4 || msgs[1].Get("content").Str != "Checking." || !msgs[1].Get("tool_calls").IsArray() || len(msgs[1].Get("tool_calls").Array()) != 0 ||
		msgs[2].Get("content").Type != gjson.Null || len(msgs[2].Get("tool_calls").Array()) != 1 {
		t.Errorf("empty-tool-calls: %s", got)
	}
	got = (&Driver{Break: OmitToolCallType}).edit()(body)
	if gjson.GetBytes(got, "messages.1.tool_calls.0.type").Exists() || !gjson.GetBytes(got, "messages.1.tool_calls.0.id").Exists() {
		t.Errorf("omit-tool-call-type: %s", got)
	}
	if got := (&Driver{Break: OmitModel}).edit()(body); gjson.GetBytes(got, "model").Exists() {
		t.Errorf("omit-model: %s", got)
	}
}

func TestGeminiMediaMistakes(t *testing.T) {
	r := task.CallToolResult{Content: []task.Content{{Type: "image", MimeType: "image/png", Data: "AA=="}, {Type: "image", MimeType: "image/png", Data: "AQ=="}}}
	fr := (&Driver{Break: DuplicateDisplayName}).geminiResponse(r, true)
	if len(fr.Parts) != 2 || fr.Parts[0].InlineData.DisplayName != fr.Parts[1].InlineData.DisplayName {
		t.Errorf("duplicate-display-name: parts %+v", fr.Parts)
	}
	fr = (&Driver{Break: DanglingRef}).geminiResponse(r, true)
	if fr.Parts[0].InlineData.DisplayName != "" || !refersTo(fr.Response, "image_1.png") {
		t.Errorf("dangling-ref: %v parts %+v", fr.Response, fr.Parts[0].InlineData)
	}
	fr = (&Driver{Break: FileDataParts}).geminiResponse(r, true)
	if fr.Parts[0].InlineData != nil || fr.Parts[0].FileData == nil {
		t.Errorf("file-data-parts: %+v", fr.Parts[0])
	}
	fr = (&Driver{Break: UnsupportedMIME}).geminiResponse(r, true)
	if fr.Parts[0].InlineData.MIMEType != "application/octet-stream" {
		t.Errorf("unsupported-mime: %+v", fr.Parts[0].InlineData)
	}
}
