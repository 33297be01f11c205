package jsonview

import (
	"encoding/json"
	"strings"
	"testing"
)

const toolLoop = `{"model":"claude-sonnet-4-5","messages":[
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":"x"}]},
 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"y"}]}]}`

func hits(lines []Line) []string {
	var out []string
	for _, l := range lines {
		if l.Hit {
			out = append(out, strings.TrimSpace(l.String()))
		}
	}
	return out
}

// The member the path names is marked, not its namesake in a sibling.
func TestMarkHitsTheNamedMemberOnly(t *testing.T) {
	for _, path := range []string{"messages.1.content.0.tool_use_id", "messages[1].content[0].tool_use_id", "messages.[1].content.[0].tool_use_id"} {
		lines, ok := Lines([]byte(toolLoop))
		if !ok {
			t.Fatal("valid JSON refused")
		}
		if !Mark(lines, path, "rule.x") {
			t.Fatalf("%s not found", path)
		}
		if got := hits(lines); len(got) != 1 || got[0] != `"tool_use_id": "toolu_9",` {
			t.Errorf("%s: hits %q", path, got)
		}
		for _, l := range lines {
			if (len(l.Marks) > 0) != (l.Hit && l.Marks[0] == "rule.x") {
				t.Errorf("%s: marks on %q: %q", path, l.String(), l.Marks)
			}
		}
	}
}

// A path naming a container marks all its lines, the label on the first.
func TestMarkCoversAContainer(t *testing.T) {
	lines, _ := Lines([]byte(toolLoop))
	if !Mark(lines, "messages.0", "a") || !Mark(lines, "messages.0.role", "b") {
		t.Fatal("not found")
	}
	got := hits(lines)
	if len(got) != 10 || got[0] != "{" || got[len(got)-1] != "}," {
		t.Errorf("hits %q", got)
	}
	for i, l := range lines {
		want := map[int]string{3: "a", 4: "b"}[i] // the message's "{" and its "role"
		if got := strings.Join(l.Marks, "+"); got != want {
			t.Errorf("line %d %q: marks %q, want %q", i, l.String(), got, want)
		}
	}
}

func TestMarkReportsAPathNotInTheBody(t *testing.T) {
	lines, _ := Lines([]byte(toolLoop))
	for _, path := range []string{"messages.2", "messages.1.content.0.is_error", ""} {
		if Mark(lines, path, "r") {
			t.Errorf("%q found", path)
		}
	}
	if len(hits(lines)) != 0 {
		t.Errorf("hits %q", hits(lines))
	}
}

// A long body loses its largest values off the path first; the path's
// member stays, addressed by the same path, and the result is JSON.
func TestFocusKeepsThePathUnderTheLimit(t *testing.T) {
	schema := `{"type":"object","properties":{"location":{"type":"string","description":"` + strings.Repeat("city name ", 80) + `"}}}`
	body := `{"model":"claude-sonnet-4-5","tools":[{"name":"get_weather","input_schema":` + schema + `}],"messages":[
	 {"role":"user","content":"` + strings.Repeat("weather? ", 60) + `"},
	 {"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Oslo"}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"3 degrees"}]}]}`
	const path = "messages.2.content.0.tool_use_id"
	got := Focus([]byte(body), path, 600)
	if len(got) > 600 || !json.Valid([]byte(got)) {
		t.Fatalf("focus is %d bytes, valid %v: %s", len(got), json.Valid([]byte(got)), got)
	}
	for _, want := range []string{`"tool_use_id":"toolu_2"`, `"id":"toolu_1"`, `"tools":"…(`, `bytes elided)"`} {
		if !strings.Contains(got, want) {
			t.Errorf("focus lacks %s: %s", want, got)
		}
	}
	lines, _ := Lines([]byte(got))
	if !Mark(lines, path, "") || hits(lines)[0] != `"tool_use_id": "toolu_2",` {
		t.Errorf("path lost in %s", got)
	}
}

func TestFocusLeavesShortBodiesAndClipsText(t *testing.T) {
	if got := Focus([]byte(`{ "a": 1 }`), "a", 100); got != `{ "a": 1 }` {
		t.Errorf("short body changed: %s", got)
	}
	if got := Focus([]byte(`{"messages":[{"role":"us`), "messages.0", 10); got != `{"messages…(14 more bytes)` {
		t.Errorf("clipped body: %s", got)
	}
	// The path's own value cannot shrink: the text is clipped instead.
	long := `{"a":"` + strings.Repeat("x", 200) + `"}`
	if got := Focus([]byte(long), "a", 50); !strings.HasSuffix(got, "…(158 more bytes)") {
		t.Errorf("unshrinkable body: %s", got)
	}
}
