package scenario

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider/conv"
)

// weatherTool is a valid tools block the error cases build on.
const weatherTool = `
tools:
  - name: get_weather
    parameters:
      type: object
      properties:
        location: {type: string}
      required: [location]
      additionalProperties: false
`

// reportOutput is a valid output block: a report with a city and a
// temperature.
const reportOutput = `
output:
  name: report
  schema:
    type: object
    properties: {city: {type: string}, temperature: {type: number}}
    required: [city, temperature]
    additionalProperties: false
`

// A scenario's output reaches the Go value, and a scripted output that
// keeps to its schema loads.
func TestParseOutput(t *testing.T) {
	sc, err := Parse("x.yaml", []byte("name: a\nfeatures: [structured-output]"+reportOutput+"turns:\n  - output: {city: Paris, temperature: 21.5}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Output == nil || sc.Output.Name != "report" || sc.Output.Schema["type"] != "object" {
		t.Errorf("output %+v", sc.Output)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"empty file", ``, `x.yaml:1: empty scenario file`},
		{"yaml syntax", "name: a\nturns: [\n", `x.yaml:2: did not find expected node content`},
		{"two documents", "name: a\nturns: [{text: hi}]\n---\nname: b\n", `x.yaml:3: more than one YAML document (one scenario per file)`},
		{"not a mapping", "- a\n- b\n", `x.yaml:1: got array, want object`},
		{"missing name", "turns:\n  - text: hi\n", `x.yaml:1: name: missing required property`},
		{"missing turns", "name: a\n", `x.yaml:1: turns: missing required property`},
		{"bad name", "name: Bad Name\nturns: [{text: hi}]\n", `x.yaml:1: name: 'Bad Name' does not match pattern '^[a-z0-9][a-z0-9-]*$'`},
		{"no turns", "name: a\nturns: []\n", `x.yaml:2: turns: minItems: got 0, want 1`},
		{"unknown top-level field", "name: a\nturns: [{text: hi}]\nprompts: hi\n", `x.yaml:3: prompts: unknown field`},
		{"unknown turn field", "name: a\nturns:\n  - text: hi\n  - txt: bye\n", `x.yaml:4: turns[1].txt: unknown field`},
		{"call without name", "name: a\nturns:\n  - text: hi\n  - calls:\n      - arguments: {}\n", `x.yaml:5: turns[1].calls[0].name: missing required property`},
		{"unknown fault kind", "name: a\nturns:\n  - fault: {kind: boom}\n", `x.yaml:3: turns[0].fault.kind: unknown fault kind "boom" (known: rate_limit, overloaded, server_error, latency, disconnect, malformed_chunk, stream_error)`},
		{"fault without kind", "name: a\nturns:\n  - fault:\n      count: 2\n", `x.yaml:3: turns[0].fault.kind: missing required property`},
		{"unknown dialect", "name: a\ndialects: [openai-chat, openai]\nturns: [{text: hi}]\n", `x.yaml:2: dialects[1]: unknown dialect "openai" (known: openai-chat, openai-responses, anthropic, gemini, bedrock)`},
		{"unknown dialect in models", "name: a\nmodels:\n  gemini: gemini-2.5-flash\n  claude: claude-sonnet-4-5\nturns: [{text: hi}]\n", `x.yaml:4: models.claude: unknown dialect "claude" (known: openai-chat, openai-responses, anthropic, gemini, bedrock)`},
		{"wrong type", "name: a\nmax_turns: many\nturns: [{text: hi}]\n", `x.yaml:2: max_turns: got string, want integer`},
		{"negative stream delay", "name: a\nturns:\n  - text: hi\n    stream: {chunk_delay_ms: -1}\n", `x.yaml:4: turns[0].stream.chunk_delay_ms: minimum: got -1, want 0`},
		{"content item missing field", "name: a\ntools:\n  - name: t\n    results:\n      - result:\n          content:\n            - {type: image, mimeType: image/png}\nturns: [{text: hi}]\n", `x.yaml:7: tools[0].results[0].result.content[0].data: missing required property`},
		{"content item unknown type", "name: a\ntools:\n  - name: t\n    results:\n      - result:\n          content: [{type: video, data: x}]\nturns: [{text: hi}]\n", `x.yaml:6: tools[0].results[0].result.content[0].type: got "video", want one of text, image, audio, resource, resource_link`},
		{"text item with image field", "name: a\ntools:\n  - name: t\n    results:\n      - result:\n          content:\n            - type: text\n              text: hi\n              mimeType: text/plain\nturns: [{text: hi}]\n", `x.yaml:9: tools[0].results[0].result.content[0].mimeType: unknown field`},
		{"resource without body", "name: a\ntools:\n  - name: t\n    results:\n      - result:\n          content:\n            - type: resource\n              resource: {uri: 'file:///a.txt'}\nturns: [{text: hi}]\n", `x.yaml:8: tools[0].results[0].result.content[0].resource: needs exactly one of text, blob`},
		{"duplicate key", "name: a\nname: b\nturns: [{text: hi}]\n", `x.yaml:2: name: duplicate key (first at line 1)`},
		{"call to undeclared tool", "name: a" + weatherTool + "turns:\n  - calls:\n      - name: get_wether\n        arguments: {location: Paris}\n", `x.yaml:12: turns[0].calls[0].name: unknown tool "get_wether" (declared: get_weather); set undeclared: true if the call is meant to name a missing tool`},
		{"undeclared on a declared tool", "name: a" + weatherTool + "turns:\n  - calls:\n      - name: get_weather\n        undeclared: true\n", `x.yaml:13: turns[0].calls[0].undeclared: tool "get_weather" is declared; drop undeclared: true`},
		{"arguments break schema", "name: a" + weatherTool + "turns:\n  - calls:\n      - name: get_weather\n        arguments: {city: Paris}\n", `x.yaml:13: turns[0].calls[0].arguments: do not match get_weather's parameters (at /: missing property 'location'); set invalid_arguments: true if that is the point`},
		{"raw arguments not JSON", "name: a" + weatherTool + "turns:\n  - calls:\n      - name: get_weather\n        raw_arguments: '{\"location\": '\n", `x.yaml:13: turns[0].calls[0].raw_arguments: do not match get_weather's parameters (raw_arguments is not JSON: unexpected EOF); set invalid_arguments: true if that is the point`},
		{"invalid_arguments that are valid", "name: a" + weatherTool + "turns:\n  - calls:\n      - name: get_weather\n        invalid_arguments: true\n        arguments: {location: Paris}\n", `x.yaml:13: turns[0].calls[0].invalid_arguments: the arguments validate against get_weather's parameters; drop invalid_arguments: true`},
		{"invalid_arguments without arguments", "name: a" + weatherTool + "turns:\n  - calls:\n      - name: get_weather\n        invalid_arguments: true\n", `x.yaml:13: turns[0].calls[0].invalid_arguments: invalid_arguments needs arguments or raw_arguments to break the schema`},
		{"parameters not a schema", "name: a\ntools:\n  - name: t\n    parameters: {type: objekt}\nturns: [{text: hi}]\n", `x.yaml:4: tools[0].parameters: not a valid JSON Schema:`},
		{"duplicate tool", "name: a\ntools:\n  - name: t\n  - name: t\nturns: [{text: hi}]\n", `x.yaml:4: tools[1].name: tool "t" declared twice (first at tools[0])`},
		{"bad tool name", "name: a\ntools:\n  - name: get weather\nturns: [{text: hi}]\n", `x.yaml:3: tools[0].name: 'get weather' does not match pattern '^[A-Za-z0-9_-]{1,64}$'`},
		{"redacted reasoning with summary", "name: a" + weatherTool + "turns:\n  - reasoning: {redacted: true, summary: hidden}\n    calls: [{name: get_weather, arguments: {location: Paris}}]\n", `x.yaml:11: turns[0].reasoning.summary: redacted reasoning has no readable summary; drop summary or redacted: true`},
		{"tool_choice names no tool", "name: a" + weatherTool + "tool_choice: get_time\nturns: [{text: hi}]\n", `x.yaml:10: tool_choice: tool_choice names no declared tool "get_time" (declared: get_weather); use auto, none, required or a tool name`},
		{"output without its feature", "name: a\noutput:\n  name: r\n  schema: {type: object}\nturns: [{text: hi}]\n", `x.yaml:2: output: a scenario with output needs the structured-output feature`},
		{"output schema not a schema", "name: a\nfeatures: [structured-output]\noutput:\n  name: r\n  schema: {type: objekt}\nturns: [{text: hi}]\n", `x.yaml:5: output.schema: not a valid JSON Schema:`},
		{"output without schema", "name: a\nfeatures: [structured-output]\noutput: {name: r}\nturns: [{text: hi}]\n", `x.yaml:3: output.schema: missing required property`},
		{"output name with a space", "name: a\nfeatures: [structured-output]\noutput: {name: a report, schema: {type: object}}\nturns: [{text: hi}]\n", `x.yaml:3: output.name: 'a report' does not match pattern`},
		{"scripted output breaks the schema", "name: a\nfeatures: [structured-output]" + reportOutput + "turns:\n  - output: {city: Paris}\n", `x.yaml:11: turns[0].output: does not match the scenario's output schema "report" (at /: missing property 'temperature')`},
		{"scripted output on a turn with calls", "name: a" + weatherTool + "turns:\n  - calls: [{name: get_weather, arguments: {location: Paris}}]\n    output: {city: Paris}\n", `x.yaml:12: turns[0].output: output is the final answer, and a turn with calls is not final`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("Parse accepted:\n%s", tc.yaml)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %T is not a *LoadError: %v", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n got: %s\nwant: %s", err, tc.want)
			}
		})
	}
}

func TestParseAcceptsMinimalAndAnchors(t *testing.T) {
	src := `
name: anchors
tools:
  - name: t
    parameters: &p {type: object, properties: {q: {type: string}}, required: [q]}
  - name: u
    parameters: *p
turns:
  - calls: [{name: t, arguments: {q: x}}, {name: u}]
  - text: "{{results}}"
`
	sc, err := Parse("a.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.File != "a.yaml" || len(sc.Tools) != 2 || sc.Tools[1].Parameters["type"] != "object" {
		t.Errorf("parsed %+v", sc)
	}
}

// Every built-in scenario loads through the schema and the semantic
// checks, and names where it comes from.
func TestBuiltinScenariosLoad(t *testing.T) {
	list, err := LoadFS(fixtures.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet(list...)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"single-call", "parallel-different-tools", "parallel-same-tool", "error-result", "multi-turn-chain",
		"reasoning-pass-back", "gemini3-signature-single", "gemini3-signature-parallel", "gemini3-signature-multistep",
		"image-result", "document-results", "no-argument-function", "text-alongside-call", "unknown-tool",
		"malformed-arguments", "large-result", "non-ascii-result", "structured-content", "strict-tools", "forced-tool-choice",
	}
	for _, n := range want {
		if _, ok := set.Get(n); !ok {
			t.Errorf("built-in scenario %q missing", n)
		}
	}
	for _, sc := range list {
		if sc.Source == "" || len(sc.Features) == 0 || sc.Prompt == "" || sc.Description == "" {
			t.Errorf("%s: needs source, features, prompt and description", sc.File)
		}
		if base := strings.TrimSuffix(filepath.Base(sc.File), ".yaml"); base != sc.Name {
			t.Errorf("%s: file name and scenario name %q differ", sc.File, sc.Name)
		}
		for _, d := range conv.Dialects {
			if sc.Supports(d) && sc.Models[d] == "" {
				t.Errorf("%s: runs on %s but names no model for it", sc.Name, d)
			}
		}
		b, err := readFixture(sc.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "# yaml-language-server: $schema=../scenario.schema.json\n") {
			t.Errorf("%s: first line should point editors at the schema", sc.File)
		}
	}
}

func readFixture(name string) ([]byte, error) { return fixtures.Scenarios.ReadFile(name) }

func TestBuiltinScenarioDetails(t *testing.T) {
	list, err := LoadFS(fixtures.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	set, _ := NewSet(list...)
	large, _ := set.Get("large-result")
	res := large.Tools[0].ResultFor(map[string]any{"path": "big.log"})
	content := res["content"].([]any)
	text := content[len(content)-1].(map[string]any)["text"].(string)
	if len(text) != 120000 {
		t.Errorf("large-result text is %d bytes, want 120000", len(text))
	}
	same, _ := set.Get("parallel-same-tool")
	tool := same.Tool("get_weather")
	london := tool.ResultFor(map[string]any{"location": "London, UK"})
	if b, _ := json.Marshal(london); !strings.Contains(string(b), "London") {
		t.Errorf("ResultFor(London) = %s", b)
	}
	r, _ := set.Get("reasoning-pass-back")
	if !r.Supports(conv.OpenAIResponses) || r.Supports(conv.OpenAIChat) || r.Model(conv.OpenAIResponses, "") != "gpt-5" {
		t.Errorf("reasoning-pass-back dialects/models wrong: %v %v", r.Dialects, r.Models)
	}
}

func TestResultForMatchesNumbersAcrossEncodings(t *testing.T) {
	tool := Tool{Name: "t", Results: []ToolResult{
		{When: map[string]any{"n": 3}, Result: map[string]any{"isError": false, "id": "three"}},
		{Result: map[string]any{"id": "other"}},
	}}
	if got := tool.ResultFor(map[string]any{"n": 3.0, "extra": true}); got["id"] != "three" {
		t.Errorf("ResultFor(3.0) = %v, want the n=3 entry", got)
	}
	if got := tool.ResultFor(map[string]any{"n": 4}); got["id"] != "other" {
		t.Errorf("ResultFor(4) = %v, want the entry without when", got)
	}
	strict := Tool{Results: tool.Results[:1]}
	if got := strict.ResultFor(map[string]any{"n": 4}); got != nil {
		t.Errorf("no entry matches: got %v, want nil", got)
	}
	if got := (&Tool{}).ResultFor(nil); got != nil {
		t.Errorf("no results: got %v", got)
	}
}

func TestGeneratedText(t *testing.T) {
	for _, n := range []int{1, 57, 58, 1000, 100001} {
		if got := GeneratedText(n); len(got) != n {
			t.Errorf("GeneratedText(%d) has %d bytes", n, len(got))
		}
	}
	if GeneratedText(200) != GeneratedText(200) {
		t.Error("GeneratedText is not deterministic")
	}
}

func TestLoadDirNamesDiskPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.yaml"), []byte("name: ok\nturns: [{text: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := LoadDir(dir)
	if err != nil || len(list) != 1 || list[0].File != filepath.Join(dir, "ok.yaml") {
		t.Fatalf("LoadDir = %v, %v", list, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yml"), []byte("name: bad\nturns: [{txt: hi}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadDir(dir)
	if want := filepath.Join(dir, "bad.yml") + ":2: turns[0].txt: unknown field"; err == nil || err.Error() != want {
		t.Errorf("LoadDir error = %v, want %s", err, want)
	}
}

func TestSetDuplicatesAndClosest(t *testing.T) {
	a := &Scenario{Name: "parallel-same-tool", File: "a.yaml"}
	b := &Scenario{Name: "parallel-same-tool", File: "b.yaml"}
	if _, err := NewSet(a, b); err == nil || err.Error() != `scenario "parallel-same-tool" defined twice: a.yaml and b.yaml` {
		t.Errorf("duplicate: %v", err)
	}
	set, _ := NewSet(a, &Scenario{Name: "single-call"})
	if got := set.Closest("paralel-same-tool"); got != "parallel-same-tool" {
		t.Errorf("Closest = %q", got)
	}
	var nilSet *Set
	if _, ok := nilSet.Get("x"); ok || nilSet.Closest("x") != "" {
		t.Error("a nil set should be empty")
	}
}

// schemaDoc is the embedded schema as a generic document.
func schemaDoc(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(fixtures.ScenarioSchema, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// Editors show descriptions on hover: every property in the schema has one.
func TestSchemaDocumentsEveryField(t *testing.T) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for name, p := range props {
					pm, _ := p.(map[string]any)
					_, hasDesc := pm["description"]
					_, hasRef := pm["$ref"]
					if !hasDesc && !hasRef {
						t.Errorf("%s.properties.%s has no description", path, name)
					}
				}
			}
			for k, c := range x {
				if k == "if" {
					continue // discriminators, not fields
				}
				walk(path+"."+k, c)
			}
		case []any:
			for _, c := range x {
				walk(path+"[]", c)
			}
		}
	}
	doc := schemaDoc(t)
	walk("#", doc)
	for name, def := range doc["$defs"].(map[string]any) {
		if _, ok := def.(map[string]any)["description"]; !ok {
			t.Errorf("$defs.%s has no description", name)
		}
	}
}

func TestSchemaDialectsMatchConv(t *testing.T) {
	enum := schemaDoc(t)["$defs"].(map[string]any)["dialect"].(map[string]any)["enum"].([]any)
	var got []string
	for _, e := range enum {
		got = append(got, e.(string))
	}
	if !reflect.DeepEqual(got, dialectNames()) {
		t.Errorf("schema dialects %v, conv.Dialects %v", got, dialectNames())
	}
}

// The schema and the Go structs must list the same fields, or a field
// would be accepted by one and refused by the other.
func TestSchemaMatchesStructs(t *testing.T) {
	doc := schemaDoc(t)
	defs := doc["$defs"].(map[string]any)
	props := func(m any) []string {
		var out []string
		for k := range m.(map[string]any)["properties"].(map[string]any) {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	fields := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			tag := strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0]
			if tag != "" && tag != "-" {
				out = append(out, tag)
			}
		}
		sort.Strings(out)
		return out
	}
	turn := defs["turn"].(map[string]any)["properties"].(map[string]any)
	pairs := []struct {
		name   string
		schema []string
		goType any
	}{
		{"scenario", props(doc), Scenario{}},
		{"tool", props(defs["tool"]), Tool{}},
		{"toolResult", props(defs["toolResult"]), ToolResult{}},
		{"turn", props(defs["turn"]), Turn{}},
		{"call", props(defs["call"]), Call{}},
		{"fault", props(defs["fault"]), Fault{}},
		{"stream", props(turn["stream"]), Stream{}},
		{"reasoning", props(turn["reasoning"]), Reasoning{}},
		{"output", props(doc["properties"].(map[string]any)["output"]), Output{}},
	}
	for _, p := range pairs {
		if got := fields(p.goType); !reflect.DeepEqual(got, p.schema) {
			t.Errorf("%s: struct fields %v, schema properties %v", p.name, got, p.schema)
		}
	}
}

// Output.Problem tells a valid answer from one that is not JSON, one with
// more than one value, and one that breaks the schema.
func TestOutputProblem(t *testing.T) {
	o := &Output{Name: "report", Schema: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required": []any{"city"}, "additionalProperties": false}}
	for text, want := range map[string]string{
		`{"city": "Tokyo"}`:         "",
		`The weather is fine.`:      "not JSON",
		`{"city": "Tokyo"} {}`:      "not JSON",
		`{"city": 18}`:              "at /city:",
		`{"city": "Tokyo", "x": 1}`: "at /:",
	} {
		got := o.Problem(text)
		if want == "" && got != "" || want != "" && !strings.HasPrefix(got, want) {
			t.Errorf("Problem(%s) = %q, want prefix %q", text, got, want)
		}
	}
}
