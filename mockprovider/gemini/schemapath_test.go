package gemini

import (
	"fmt"
	"strings"
	"testing"
)

// The required check keeps its path as a stack: a sibling walked first
// leaves nothing behind, and a miss 2,000 levels down is named in full.
func TestRequiredDefinedPaths(t *testing.T) {
	const levels = 2000
	deep := strings.Repeat(`{"type":"OBJECT","properties":{"a":`, levels) + `{"type":"OBJECT","required":["gone"]}` + strings.Repeat(`}}`, levels)
	params := `{"type":"OBJECT","properties":{"a":{"type":"OBJECT","properties":{"x":{"type":"STRING"}}},"b":{"type":"OBJECT","properties":{"y":{"type":"STRING"}},"required":["z"]},"c":` + deep + `}}`
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":` + params + `}]}]}`
	req, apiErr := decodeBody([]byte(body), false)
	if apiErr != nil {
		t.Fatal(apiErr.Message)
	}
	vs := checkRequiredDefined(req, nil)
	root := "tools[0].function_declarations[0].parameters"
	want := []string{
		root + ".properties[b].required[0]",
		root + ".properties[c]" + strings.Repeat(".properties[a]", levels) + ".required[0]",
	}
	if len(vs) != len(want) {
		t.Fatalf("%d violations, want %d", len(vs), len(want))
	}
	for i, v := range vs {
		if v.Path != want[i] {
			t.Errorf("violation %d at %.200s, want %.200s", i, v.Path, want[i])
		}
		if !strings.Contains(v.Message, want[i]+": property is not defined") {
			t.Errorf("violation %d: %.200s", i, v.Message)
		}
	}
}

// An error's path is found in one pass over the body: the positions of
// map entries on the way, and the value at its end.
func TestLocate(t *testing.T) {
	body := []byte(`{"a":{"x":1,"y":[10,{"k":"v"}],"z":{}},"b":2}`)
	for _, tc := range []struct {
		path      []string
		value     string
		positions []int
	}{
		{[]string{"a", "y", "1", "k"}, `"v"`, []int{0, 1, 1, 0}},
		{[]string{"a", "z"}, `{}`, []int{0, 2}},
		{[]string{"b"}, `2`, []int{1}},
		{[]string{"a", "nope"}, ``, []int{0}},
		{[]string{"a", "x", "deeper"}, ``, []int{0, 0}},
	} {
		v, pos := locate(body, tc.path)
		if string(v) != tc.value || fmt.Sprint(pos) != fmt.Sprint(tc.positions) {
			t.Errorf("locate(%v) = %s %v, want %s %v", tc.path, v, pos, tc.value, tc.positions)
		}
	}
}
