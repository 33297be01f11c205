package openaiwire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCompileProblem(t *testing.T) {
	deep := func(levels int, leaf string) string {
		return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + leaf + strings.Repeat(`}}`, levels)
	}
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"fine", `{"type":"object","properties":{"a":{"type":"string"}}}`, ""},
		{"not JSON Schema", `{"type":"object","properties":{"a":{"type":"strin"}}}`, "schema is not valid JSON Schema: "},
		// Not followed, and not refused: no capture shows the API refusing it.
		{"a file $ref", `{"type":"object","properties":{"a":{"$ref":"file:///etc/passwd"}}}`, ""},
		{"a local $ref", `{"type":"object","$defs":{"n":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/n"}}}`, ""},
		// The context path is a stack: a sibling checked before must not
		// leave its name behind.
		{"second sibling", `{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"type":"string"}}},"b":{"type":"object","properties":{"y":{"type":"array"}}}}}`,
			"In context=('properties', 'b', 'properties', 'y'), array schema missing items."},
		// Too large for the library: not refused, and the mock's own
		// checks still run.
		{"2,000 levels", deep(2000, `{"type":"string"}`), ""},
		{"2,000 levels, an array without items", deep(2000, `{"type":"array"}`),
			"In context=(" + strings.TrimSuffix(strings.Repeat("'properties', 'a', ", 2000), ", ") + "), array schema missing items."},
	} {
		if got := compileProblem(json.RawMessage(tc.schema)); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%s: %.300q, want %.300q", tc.name, got, tc.want)
		}
	}
}

// One request has at most maxMetaCheckedBytes of tool schemas checked
// against the meta-schema, in request order; past it the mock's own
// checks still run.
func TestMetaCheckIsBoundedPerRequest(t *testing.T) {
	bad := ToolDecl{Name: "bad", Path: "tools[1]", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"strin"}}}`)}
	noItems := ToolDecl{Name: "no_items", Path: "tools[2]", Parameters: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array"}}}`)}
	filler := ToolDecl{Name: "big", Path: "tools[0]",
		Parameters: json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", maxMetaCheckedBytes) + `"}`)}
	if vs := CheckSchemas([]ToolDecl{bad, filler}); len(vs) != 1 || !strings.Contains(vs[0].Message, "not valid JSON Schema") {
		t.Errorf("within the bound: %+v", vs)
	}
	vs := CheckSchemas([]ToolDecl{filler, bad, noItems})
	if len(vs) != 1 || vs[0].Path != "tools[2].parameters" || !strings.Contains(vs[0].Message, "array schema missing items") {
		t.Errorf("past the bound: %+v", vs)
	}
}
