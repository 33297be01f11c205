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
