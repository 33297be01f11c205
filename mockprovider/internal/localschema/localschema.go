// Package localschema is the one way toolwire compiles a JSON Schema that
// came from a client, a scenario file or a RAP tool: with
// santhosh-tekuri/jsonschema, resolving local references only, and (with
// Compile or Fits) only for documents whose size keeps the library's work
// small.
//
// The library's default loader opens file:// URLs, and resolves a
// relative reference against the working directory: a tool schema could
// read (or hang on) the server's files and learn its paths, so a $ref is
// resolved inside its own document only.
package localschema

import (
	"errors"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// URL is where a compiled document lives: absolute and of no scheme the
// library can load, so a relative reference resolves beside it
// (mem:///other.json), never against the working directory.
const URL = "mem:///schema.json"

// ErrNotLocal is why a reference outside the document is not followed.
// It names nothing: not the server's paths or working directory, and not
// the URL either (a relative one would show where it resolved).
var ErrNotLocal = errors.New("a $ref names a document outside the schema: only local references (#...) are resolved")

// localOnly refuses every URL and remembers that it did.
type localOnly struct{ refused bool }

func (l *localOnly) Load(string) (any, error) {
	l.refused = true
	return nil, ErrNotLocal
}

// NewCompiler is jsonschema.NewCompiler with a loader that refuses every
// URL. The draft meta-schemas are embedded in the library and still load.
func NewCompiler() *jsonschema.Compiler {
	c, _ := newCompiler()
	return c
}

func newCompiler() (*jsonschema.Compiler, *localOnly) {
	loader := &localOnly{}
	c := jsonschema.NewCompiler()
	c.UseLoader(loader)
	return c, loader
}

// The library's compiler is quadratic in the number of subschemas (each
// is looked up in a list of those queued) and, while checking a schema
// against its meta-schema, builds every subschema's location afresh, one
// string concatenation per level: cubic in depth. A 2,000-level schema
// took it about 40 s. These bound what is handed to it, measured in JSON
// objects and arrays ("containers") and their nesting depth:
//
//   - MaxContainers bounds the quadratic term (1,000: milliseconds);
//   - MaxDepthWork bounds the sum over containers of depth squared, so a
//     chain of 90 containers (45 nested schemas), or a hundred containers
//     30 levels down, is still checked, and 2,000 levels are not.
//
// Real tool schemas stay far below both: a few hundred containers, 10 to
// 30 levels.
const (
	MaxContainers = 1000
	MaxDepthWork  = 250_000
)

// ErrTooLarge says a document was not compiled because of its size.
var ErrTooLarge = errors.New("schema too large to check: more than 1,000 objects and arrays, or nested too deep")

// Fits reports whether doc (as jsonschema.UnmarshalJSON or encoding/json
// decode it) is within the bounds above. It stops at the first container
// past them, so its own cost is bounded too.
func Fits(doc any) bool {
	containers, work := 0, 0
	var walk func(v any, depth int) bool
	walk = func(v any, depth int) bool {
		switch x := v.(type) {
		case map[string]any:
			containers++
			work += depth * depth
			if containers > MaxContainers || work > MaxDepthWork {
				return false
			}
			for _, c := range x {
				if !walk(c, depth+1) {
					return false
				}
			}
		case []any:
			containers++
			work += depth * depth
			if containers > MaxContainers || work > MaxDepthWork {
				return false
			}
			for _, c := range x {
				if !walk(c, depth+1) {
					return false
				}
			}
		}
		return true
	}
	return walk(doc, 0)
}

// Compile compiles doc at URL, or the subschema fragment names ("" for
// the whole document, else "#/..."), refusing with ErrTooLarge what Fits
// refuses and with ErrNotLocal a reference it would have had to load.
func Compile(doc any, fragment string) (*jsonschema.Schema, error) {
	if !Fits(doc) {
		return nil, ErrTooLarge
	}
	c, loader := newCompiler()
	if err := c.AddResource(URL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(URL + fragment)
	if err != nil && loader.refused {
		// The library's error quotes the URL it would have loaded.
		return nil, ErrNotLocal
	}
	return sch, err
}
