package jsonview

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitPathReadsEveryDialectsSpelling(t *testing.T) {
	want := []string{"messages", "1", "role"}
	for _, p := range []string{"messages.[1].role", "messages[1].role", "messages.1.role"} {
		if got := SplitPath(p); !slices.Equal(got, want) {
			t.Errorf("SplitPath(%q) = %q, want %q", p, got, want)
		}
	}
	if got := SplitPath("contents[0].parts[2]"); !slices.Equal(got, []string{"contents", "0", "parts", "2"}) {
		t.Errorf("bracketed: %q", got)
	}
}

func TestPrettyLinesTagEachLineWithItsPath(t *testing.T) {
	lines, ok := Lines([]byte(`{"a":[1,{"b":"x\"y"}],"c":{},"d":null}`))
	if !ok {
		t.Fatal("valid JSON refused")
	}
	var got []string
	for _, l := range lines {
		got = append(got, l.String()+"  @"+strings.Join(l.Path, "/"))
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
	if !Within([]string{"a", "1", "b"}, []string{"a", "1"}) || Within([]string{"a"}, []string{"a", "1"}) || Within([]string{"a"}, nil) {
		t.Error("within")
	}
}

func TestClippedBodyIsNotLaidOut(t *testing.T) {
	if _, ok := Lines([]byte(`{"messages":[{"role":"us`)); ok {
		t.Error("a clipped body was laid out as JSON")
	}
}
