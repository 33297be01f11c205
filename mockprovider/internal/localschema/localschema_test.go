package localschema

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Local references resolve; every other one is refused with an error that
// names no URL, path or working directory. The meta-schemas a $schema
// names still load (they are embedded in the library).
func TestOnlyLocalReferencesResolve(t *testing.T) {
	ok := `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"type":"object","properties":{"a":{"$ref":"#/definitions/n"}}}`
	sch, err := Compile(decode(t, ok), "")
	if err != nil {
		t.Fatalf("local ref: %v", err)
	}
	if sch.Validate(map[string]any{"a": "x"}) == nil {
		t.Error("the local ref was not followed: a string passed as an integer")
	}
	cwd, _ := os.Getwd()
	for _, ref := range []string{"file:///etc/passwd", "passwd.json", "../../etc/passwd", "https://example.com/s.json", "urn:x"} {
		_, err := Compile(decode(t, fmt.Sprintf(`{"properties":{"a":{"$ref":%q}}}`, ref)), "")
		if !errors.Is(err, ErrNotLocal) {
			t.Errorf("$ref %s: err = %v, want ErrNotLocal", ref, err)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, ref) || strings.Contains(msg, cwd) || strings.Contains(msg, "file:") {
			t.Errorf("$ref %s: %q names what it refused", ref, msg)
		}
	}
	// A compiler from NewCompiler refuses them too.
	c := NewCompiler()
	if err := c.AddResource(URL, decode(t, `{"$ref":"file:///etc/passwd"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(URL); err == nil || strings.Contains(err.Error(), "invalid character") {
		t.Errorf("NewCompiler: %v", err)
	}
}

// Fits bounds the containers and the sum of their depths squared, and
// stops walking once past either.
func TestFits(t *testing.T) {
	chain := func(n int) string {
		return strings.Repeat(`{"properties":{"a":`, n) + `{}` + strings.Repeat(`}}`, n)
	}
	flat := func(n int) string {
		props := make([]string, n)
		for i := range props {
			props[i] = fmt.Sprintf(`"p%d":{}`, i)
		}
		return `{"properties":{` + strings.Join(props, ",") + `}}`
	}
	for _, tc := range []struct {
		name string
		doc  string
		want bool
	}{
		{"a chain of 40 schemas (81 levels)", chain(40), true},
		{"a chain of 2,000 schemas", chain(2000), false},
		{"998 properties (1,000 containers)", flat(998), true},
		{"999 properties", flat(999), false},
		{"300 properties 30 levels down", strings.Replace(chain(15), "{}", flat(300), 1), false},
		{"100 properties 30 levels down", strings.Replace(chain(15), "{}", flat(100), 1), true},
	} {
		if got := Fits(decode(t, tc.doc)); got != tc.want {
			t.Errorf("%s: Fits = %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := Compile(decode(t, chain(2000)), ""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Compile(chain of 2,000) = %v, want ErrTooLarge", err)
	}
}
