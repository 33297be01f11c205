package scenario_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// fuzzFile is the name the fuzzed bytes are parsed under; every error must
// carry it, so a user with many fixture directories knows which file broke.
const fuzzFile = "fuzz/dir/input.yaml"

// yamlLines counts lines as the YAML parser does: "\r\n", "\n", a lone
// "\r", and the Unicode breaks NEL, LS and PS each end a line.
func yamlLines(data []byte) int {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := 1
	for _, br := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		n += strings.Count(s, br)
	}
	return n
}

// FuzzParse feeds arbitrary bytes to scenario.Parse, seeded with every
// built-in scenario and a few hostile YAML shapes. Parse must never panic;
// a failure must be a *LoadError naming the file with a line that exists;
// a success must carry the file name and survive a second parse unchanged
// in its name and turn count.
//
//	go test -run='^$' -fuzz='^FuzzParse$' -fuzztime=30s ./mockprovider/scenario
func FuzzParse(f *testing.F) {
	err := fs.WalkDir(fixtures.Scenarios, "scenarios", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fixtures.Scenarios, p)
		if err == nil {
			f.Add(b)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"",
		"---\n",
		"name: x\nturns: []\n",
		"name: x\nturns:\n  - text: hi\n",
		"name: &a x\nturns: [*a]\n",
		"a: &a [*a, *a]\nb: &b [*a, *a]\nc: [*b, *b]\n",
		"name: x\nturns:\n  - calls:\n      - name: nope\n",
		"name: x\ntools:\n  - name: t\n    parameters: {type: object, properties: {n: {type: integer}}}\n    results:\n      - generated_text_bytes: 100\n        result: {}\nturns:\n  - calls:\n      - {name: t, arguments: {n: x}}\n",
		"name: x\nturns: [{fault: {kind: rate_limit, count: -1}}]\n",
		"\tname: x",
		"name: x\nturns:\n- text: \"\\uD800\"\n",
		"!!binary gIGC",
		"name: x\n<<: {turns: []}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse(fuzzFile, data)
		if err != nil {
			if sc != nil {
				t.Fatalf("Parse returned both a scenario and an error: %v", err)
			}
			var le *scenario.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T, not *scenario.LoadError: %v", err, err)
			}
			if le.File != fuzzFile || !strings.HasPrefix(err.Error(), fuzzFile+":") {
				t.Fatalf("error does not name the file first: %q", err)
			}
			if lines := yamlLines(data); le.Line < 0 || le.Line > lines {
				t.Fatalf("error points at line %d of a %d-line file: %q", le.Line, lines, err)
			}
			if !utf8.ValidString(le.Message) && utf8.Valid(data) {
				t.Fatalf("error message is not UTF-8 for a UTF-8 file: %q", le.Message)
			}
			return
		}
		if sc == nil {
			t.Fatal("Parse returned neither a scenario nor an error")
		}
		if sc.File != fuzzFile {
			t.Fatalf("scenario.File = %q, want %q", sc.File, fuzzFile)
		}
		again, err := scenario.Parse(fuzzFile, data)
		if err != nil || again.Name != sc.Name || len(again.Turns) != len(sc.Turns) {
			t.Fatalf("a second parse of the same bytes differs: %v", err)
		}
	})
}
