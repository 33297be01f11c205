package refdriver

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/suite/task"
)

func TestResultConversions(t *testing.T) {
	r := task.CallToolResult{Content: []task.Content{{Type: "text", Text: "nope"}, {Type: "image", MimeType: "image/png", Data: "AA=="}}, IsError: true}
	var honest Mistake
	if s := honest.PlainText(r); !strings.HasPrefix(s, "Error: nope") || !strings.Contains(s, "image/png") {
		t.Errorf("plainText = %q", s)
	}
	if s := OmitIsError.PlainText(r); strings.HasPrefix(s, "Error") {
		t.Errorf("omit-is-error plainText = %q", s)
	}
	if s := ErrorAsNull.ErrorText(r); s != "null" {
		t.Errorf("error-as-null errorText = %q", s)
	}
	if s := honest.PlainText(task.CallToolResult{StructuredContent: map[string]any{"n": 1.0}}); s != `{"n":1}` {
		t.Errorf("structured plainText = %q", s)
	}
}

// TestSharedAnswers: the shared mistakes that change how a call is
// answered, against the honest answer.
func TestSharedAnswers(t *testing.T) {
	tk := &task.Task{Tools: []task.Tool{{Name: "f", Parameters: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"}}}}}
	var honest Mistake
	if r, err := honest.Answer(tk, Call{Name: "f", BadArgs: true}); err != nil || !r.IsError {
		t.Errorf("honest bad arguments: %+v %v", r, err)
	}
	if _, err := CrashOnUnknownTool.Answer(tk, Call{Name: "g"}); err == nil {
		t.Error("crash-on-unknown-tool answered an undeclared tool")
	}
	if r, err := LibraryErrorWording.Answer(tk, Call{Name: "g"}); err != nil || !strings.Contains(r.Text(), "not found. Available tools: f") {
		t.Errorf("library-error-wording unknown tool: %q %v", r.Text(), err)
	}
	if r, _ := ValidateArguments.Answer(tk, Call{Name: "f", Args: map[string]any{"n": "x"}}); !r.IsError || !strings.HasPrefix(r.Text(), "Tool input validation failed for f") {
		t.Errorf("validate-arguments: %+v", r)
	}
	as := SwappedIDs.Answers([]Answer{{ID: "a"}, {ID: "b"}, {ID: "c"}})
	if as[0].ID != "b" || as[1].ID != "a" || as[2].ID != "c" {
		t.Errorf("swapped-ids: %+v", as)
	}
	if as := UnansweredCall.Answers([]Answer{{ID: "a"}, {ID: "b"}}); len(as) != 1 || as[0].ID != "a" {
		t.Errorf("unanswered-call: %+v", as)
	}
}

func TestDropFirst(t *testing.T) {
	body := []byte(`{"messages":[{"role":"user","content":"x"},{"role":"assistant","content":"y"}]}`)
	if got := DropFirst("messages")(body); gjson.GetBytes(got, "messages.0.role").Str != "assistant" || len(gjson.GetBytes(got, "messages").Array()) != 1 {
		t.Errorf("drop-first-user-turn: %s", got)
	}
	first := []byte(`{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`)
	if got := DropFirst("contents")(first); len(gjson.GetBytes(got, "contents").Array()) != 1 {
		t.Errorf("drop-first-user-turn emptied the first request: %s", got)
	}
}

// TestExpectationsGather: the kill matrix joins the rows of one mistake
// across dialects, per mock configuration.
func TestExpectationsGather(t *testing.T) {
	a := Dialect{Name: "a", Mistakes: []Mistake{UnknownMember.Failing("a.known-fields"), DropData}}
	b := Dialect{Name: "b", Mistakes: []Mistake{UnknownMember.Failing("b.known-fields").Killing(Kill{StrictRoles: true, Fails: []string{"b.strict"}})}}
	got := Expectations([]Dialect{a, b})
	if len(got) != 3 {
		t.Fatalf("expectations = %+v", got)
	}
	if e := got[0]; e.Break != UnknownMember.Name || len(e.Dialects) != 2 || strings.Join(e.Fails, ",") != "a.known-fields,b.known-fields" || e.StrictRoles {
		t.Errorf("unknown-member = %+v", e)
	}
	if e := got[2]; e.Break != UnknownMember.Name || !e.StrictRoles || len(e.Dialects) != 1 || e.Dialects[0] != "b" || strings.Join(e.Fails, ",") != "b.strict" {
		t.Errorf("unknown-member/strict-roles = %+v", e)
	}
	if e := got[1]; e.Break != DropData.Name || len(e.Dialects) != 1 || len(e.Fails) != 1 {
		t.Errorf("drop-data = %+v", e)
	}
	// The shared declaration is not changed by a dialect's rules.
	if len(UnknownMember.Fails) != 0 {
		t.Errorf("UnknownMember.Fails = %v", UnknownMember.Fails)
	}
}
