package models

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sdkModelIDs reads the string constants of the named types from a
// module's source, so a new model in an SDK upgrade is a failing test
// rather than a 404 for its users.
func sdkModelIDs(t *testing.T, module, file string, types ...string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), file)
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, ty := range types {
		want[ty] = true
	}
	var ids []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			ident, ok := vs.Type.(*ast.Ident)
			if !ok || !want[ident.Name] {
				continue
			}
			for _, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					ids = append(ids, s)
				}
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no %v constants in %s: the SDK moved them", types, path)
	}
	return ids
}

func TestEverySDKModelIsInTheCatalog(t *testing.T) {
	for _, tc := range []struct {
		api    API
		module string
		file   string
		types  []string
	}{
		{OpenAI, "github.com/openai/openai-go/v3", "shared/shared.go", []string{"ChatModel", "ResponsesModel", "AllModels"}},
		{Anthropic, "github.com/anthropics/anthropic-sdk-go/v2", "message.go", []string{"Model"}},
	} {
		for _, id := range sdkModelIDs(t, tc.module, tc.file, tc.types...) {
			if _, ok := Builtin().Lookup(tc.api, id); !ok {
				t.Errorf("%s model %q (an SDK constant) is not in catalog.yaml", tc.api, id)
			}
		}
	}
}

func TestLookupForms(t *testing.T) {
	for _, tc := range []struct {
		api    API
		id     string
		want   string
		exists bool
	}{
		{OpenAI, "gpt-4o-2024-08-06", "gpt-4o", true},
		{OpenAI, "ft:gpt-4o-mini-2024-07-18:acme::9abcDEF", "gpt-4o-mini", true},
		{OpenAI, "ft:gpt-4.1:acme:custom:9abcDEF", "gpt-4.1", true},
		{OpenAI, "ft:gpt-nope:acme::1", "", false},
		{OpenAI, "gpt-test", "", false},
		{OpenAI, "gpt-4o-2099-01-01", "", false},
		{Anthropic, "claude-sonnet-4-5-20250929", "claude-sonnet-4-5", true},
		{Anthropic, "claude-sonnet-4-5@20250929", "claude-sonnet-4-5", true},
		{Anthropic, "claude-test", "", false},
		{Gemini, "models/gemini-2.5-flash", "gemini-2.5-flash", true},
		{Gemini, "gemini-flash-latest", "gemini-flash-latest", true},
		{Gemini, "gemini-1.5-flash", "", false},
		{Gemini, "claude-sonnet-4-5", "", false},
	} {
		m, ok := Builtin().Lookup(tc.api, tc.id)
		if ok != tc.exists || (ok && m.ID != tc.want) {
			t.Errorf("Lookup(%s, %q) = %v %v, want %q %v", tc.api, tc.id, m, ok, tc.want, tc.exists)
		}
	}
}

func TestCapabilityFacts(t *testing.T) {
	get := func(api API, id string) *Model {
		m, ok := Builtin().Lookup(api, id)
		if !ok {
			t.Fatalf("%s not in catalog", id)
		}
		return m
	}
	if !get(OpenAI, "gpt-4o").NotReasoning() || get(OpenAI, "o3").NotReasoning() || get(OpenAI, "gpt-5.4").NotReasoning() {
		t.Error("reasoning facts")
	}
	if !get(OpenAI, "o1-mini").NoDeveloperRole || get(OpenAI, "o1").NoDeveloperRole {
		t.Error("developer role facts")
	}
	if !get(OpenAI, "o1-mini").RefusesEffort("low") || get(OpenAI, "o3").RefusesEffort("high") || !get(OpenAI, "o3").RefusesEffort("minimal") {
		t.Error("effort facts")
	}
	// A model whose efforts are unrecorded refuses none.
	if get(OpenAI, "gpt-5.4").RefusesEffort("anything") {
		t.Error("unknown efforts refused")
	}
	if !get(Anthropic, "claude-opus-4-6").RefusesEffort("xhigh") || get(Anthropic, "claude-opus-4-7").RefusesEffort("xhigh") {
		t.Error("anthropic effort facts")
	}
	if !get(OpenAI, "gpt-4o").RefusesInput("audio") || get(OpenAI, "gpt-4o-audio-preview").RefusesInput("audio") {
		t.Error("input facts")
	}
	if !get(OpenAI, "gpt-4.1").RefusesWebSearch() || get(OpenAI, "gpt-4o-search-preview").RefusesWebSearch() {
		t.Error("web search facts")
	}
	// Structured outputs: an empty list refuses every member, a list the
	// others, no list (unknown) none.
	if !get(Anthropic, "claude-3-5-haiku-20241022").RefusesStructuredOutput("output_config") ||
		!get(Anthropic, "claude-opus-4-7").RefusesStructuredOutput("output_format") ||
		get(Anthropic, "claude-opus-4-7").RefusesStructuredOutput("output_config") ||
		get(Anthropic, "claude-haiku-4-5").RefusesStructuredOutput("output_format") ||
		get(Anthropic, "claude-opus-5").RefusesStructuredOutput("output_format") {
		t.Error("structured output facts")
	}
}

func TestOverridesAndWildcard(t *testing.T) {
	extra, err := Parse([]byte(`
openai:
  - {id: gpt-4o, reasoning: true}
  - {id: gpt-7, aliases: [gpt-7-2027-01-01]}
anthropic:
  - {id: "*"}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := Builtin().With(extra)
	if m, ok := c.Lookup(OpenAI, "gpt-4o"); !ok || m.NotReasoning() {
		t.Errorf("override of gpt-4o not applied: %+v", m)
	}
	// The replaced entry's aliases went with it.
	if _, ok := c.Lookup(OpenAI, "gpt-4o-2024-08-06"); ok {
		t.Error("alias of a replaced entry still found")
	}
	if m, ok := c.Lookup(OpenAI, "gpt-7-2027-01-01"); !ok || m.ID != "gpt-7" {
		t.Error("added model not found by alias")
	}
	if _, ok := c.Lookup(OpenAI, "gpt-test"); ok {
		t.Error("a wildcard for anthropic leaked into openai")
	}
	if m, ok := c.Lookup(Anthropic, "claude-test"); !ok || !m.IsWildcard() {
		t.Error("wildcard does not accept a made-up id")
	}
	if m, _ := c.Lookup(Anthropic, "claude-opus-4-6"); m == nil || m.IsWildcard() {
		t.Error("wildcard shadows a catalog model")
	}
	// The built-in catalog is unchanged.
	if m, _ := Builtin().Lookup(OpenAI, "gpt-4o"); !m.NotReasoning() {
		t.Error("With changed the built-in catalog")
	}
}

func TestParseRefusesBadFiles(t *testing.T) {
	for name, src := range map[string]string{
		"misspelt capability": "openai:\n  - {id: gpt-7, reasonin: true}\n",
		"unknown api":         "mistral:\n  - {id: m}\n",
		"no id":               "gemini:\n  - {reasoning: true}\n",
		"duplicate":           "openai:\n  - {id: a}\n  - {id: b, aliases: [a]}\n",
		"not yaml":            "openai: [",
		"misspelt input":      "openai:\n  - {id: gpt-7, inputs: [text, imgae]}\n",
		"unknown endpoint":    "openai:\n  - {id: gpt-7, endpoints: [completions]}\n",
		"bad date":            "gemini:\n  - {id: g, created: last week}\n",
	} {
		if _, err := Parse([]byte(src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if c, err := Parse(nil); err != nil || len(c.List(OpenAI)) != 0 {
		t.Errorf("empty file: %v", err)
	}
}

// BenchmarkLookup: the pipeline looks every request's model up; an id as
// listed is one map read, a prefixed or fine-tuned one a second.
func BenchmarkLookup(b *testing.B) {
	c := Builtin()
	for _, id := range []string{"gpt-4.1", "ft:gpt-4o-mini-2024-07-18:acme::x1", "gpt-test"} {
		b.Run(id, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Lookup(OpenAI, id)
			}
		})
	}
}
