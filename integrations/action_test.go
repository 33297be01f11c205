package integrations

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// actionlintModule is run with `go run` at a pinned version so the main
// module does not depend on it.
const actionlintModule = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// actionlint returns a function running actionlint in a directory, or
// skips when the module cannot be fetched (no network, no proxy).
func actionlint(t *testing.T) func(dir string, args ...string) (string, error) {
	t.Helper()
	gocache := t.TempDir() // outside any module: go run pkg@version ignores go.mod
	if out, err := run(t, 10*time.Minute, gocache, nil, "go", "run", actionlintModule, "-version"); err != nil {
		t.Skipf("actionlint unavailable (go run %s): %v\n%s", actionlintModule, err, out)
	}
	return func(dir string, args ...string) (string, error) {
		return run(t, 5*time.Minute, dir, nil, "go", append([]string{"run", actionlintModule, "-no-color"}, args...)...)
	}
}

type actionMeta struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]any `yaml:"outputs"`
	Runs    struct {
		Using string           `yaml:"using"`
		Steps []map[string]any `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) (actionMeta, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionMeta
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a, raw
}

func TestActionDeclaresWhatItUses(t *testing.T) {
	a, raw := readAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", a.Runs.Using)
	}
	for _, want := range []string{"driver", "dialects", "features", "baseline", "report-dir"} {
		if _, ok := a.Inputs[want]; !ok {
			t.Errorf("input %q missing", want)
		}
	}
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`inputs\.([a-z-]+)`).FindAllStringSubmatch(string(raw), -1) {
		used[m[1]] = true
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml uses undeclared input %q", m[1])
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("input %q is declared but never used", name)
		}
	}
	text := string(raw)
	for _, want := range []string{"go build", "./cmd/toolwire", "conform", "$GITHUB_STEP_SUMMARY", "actions/upload-artifact@", "summary.md"} {
		if !strings.Contains(text, want) {
			t.Errorf("action.yml lacks %q", want)
		}
	}
}

// TestActionlint lints the example workflows as they are, a workflow that
// uses the action with every input (actionlint checks local actions'
// metadata and inputs), and the action's steps as a reusable workflow,
// which puts their expressions, action inputs and shell scripts (with
// shellcheck where installed) under actionlint too.
func TestActionlint(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches and builds actionlint")
	}
	lint := actionlint(t)
	root := repoRoot(t)
	a, raw := readAction(t)

	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, ".github", "workflows"), 0o755)
	os.MkdirAll(filepath.Join(repo, "toolwire"), 0o755)
	os.WriteFile(filepath.Join(repo, "toolwire", "action.yml"), raw, 0o644)

	examples, _ := filepath.Glob(filepath.Join(root, "docs", "examples", "*.yml"))
	if len(examples) == 0 {
		t.Fatal("no workflow example in docs/examples")
	}
	for _, ex := range examples {
		b, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(repo, ".github", "workflows", "example-"+filepath.Base(ex)), b, 0o644)
	}

	with := map[string]string{}
	for name := range a.Inputs {
		with[name] = "x"
	}
	user := map[string]any{
		"name": "uses the action",
		"on":   "push",
		"jobs": map[string]any{"conform": map[string]any{
			"runs-on": "ubuntu-latest",
			"steps": []any{
				map[string]any{"uses": "actions/checkout@v4"},
				map[string]any{"id": "tw", "uses": "./toolwire", "with": with},
				map[string]any{"run": "echo \"exit ${{ steps.tw.outputs.exit-code }}\""},
			},
		}},
	}
	writeYAML(t, filepath.Join(repo, ".github", "workflows", "uses-action.yml"), user)

	callInputs := map[string]any{}
	for name, in := range a.Inputs {
		callInputs[name] = map[string]any{"type": "string", "required": in.Required, "default": in.Default}
		if in.Required {
			delete(callInputs[name].(map[string]any), "default")
		}
	}
	steps := []any{}
	for _, s := range a.Runs.Steps {
		steps = append(steps, s)
	}
	asWorkflow := map[string]any{
		"name": "action steps",
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": callInputs}},
		"jobs": map[string]any{"steps": map[string]any{"runs-on": "ubuntu-latest", "steps": steps}},
	}
	writeYAML(t, filepath.Join(repo, ".github", "workflows", "action-steps.yml"), asWorkflow)

	files, _ := filepath.Glob(filepath.Join(repo, ".github", "workflows", "*.yml"))
	slices.Sort(files)
	out, err := lint(repo, files...)
	if err != nil {
		t.Fatalf("actionlint found problems (%v):\n%s", err, out)
	}
}

func writeYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
