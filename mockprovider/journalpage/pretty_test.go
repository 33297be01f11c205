package journalpage

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitPathReadsEveryDialectsSpelling(t *testing.T) {
	want := []string{"messages", "1", "role"}
	for _, p := range []string{"messages.[1].role", "messages[1].role", "messages.1.role"} {
		if got := splitPath(p); !slices.Equal(got, want) {
			t.Errorf("splitPath(%q) = %q, want %q", p, got, want)
		}
	}
	if got := splitPath("contents[0].parts[2]"); !slices.Equal(got, []string{"contents", "0", "parts", "2"}) {
		t.Errorf("bracketed: %q", got)
	}
}

func TestPrettyLinesTagEachLineWithItsPath(t *testing.T) {
	lines, ok := prettyLines([]byte(`{"a":[1,{"b":"x\"y"}],"c":{},"d":null}`))
	if !ok {
		t.Fatal("valid JSON refused")
	}
	var got []string
	for _, l := range lines {
		text := strings.Repeat("  ", l.Indent) + l.Key + l.Text
		if l.Comma {
			text += ","
		}
		got = append(got, text+"  @"+strings.Join(l.Path, "/"))
	}
	want := []string{
		`{  @`,
		`  "a": [  @a`,
		`    1,  @a/0`,
		`    {  @a/1`,
		`      "b": "x\"y"  @a/1/b`,
		`    }  @a/1`,
		`  ],  @a`,
		`  "c": {},  @c`,
		`  "d": null  @d`,
		`}  @`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !within([]string{"a", "1", "b"}, []string{"a", "1"}) || within([]string{"a"}, []string{"a", "1"}) || within([]string{"a"}, nil) {
		t.Error("within")
	}
}

func TestClippedBodyShowsAsText(t *testing.T) {
	if _, ok := prettyLines([]byte(`{"messages":[{"role":"us`)); ok {
		t.Error("a clipped body was laid out as JSON")
	}
	if d := toDocument([]byte(`{"messages":[`)); d.Raw == "" || d.Lines != nil {
		t.Errorf("clipped body: %+v", d)
	}
}
