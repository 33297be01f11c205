package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/internal/localschema"
)

const schemaURL = "https://github.com/toolwire/toolwire/fixtures/scenario.schema.json"

// compiledSchema is the embedded scenario schema, compiled once. A schema
// that does not compile is a build defect; the tests load it.
var compiledSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(fixtures.ScenarioSchema))
	if err != nil {
		return nil, fmt.Errorf("scenario schema: %w", err)
	}
	c := localschema.NewCompiler()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("scenario schema: %w", err)
	}
	return c.Compile(schemaURL)
})

var printer = message.NewPrinter(language.English)

func validateSchema(file string, doc *yamlDoc) error {
	if probs := schemaProblems(file, doc); len(probs) > 0 {
		return probs[0]
	}
	return nil
}

// schemaProblems is every schema failure of a file, one per field, in the
// order a person should fix them: by line, and on a line the most specific
// field first.
func schemaProblems(file string, doc *yamlDoc) []*LoadError {
	sch, err := compiledSchema()
	if err != nil {
		return []*LoadError{{File: file, Line: 1, Message: err.Error()}}
	}
	err = sch.Validate(doc.value)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []*LoadError{{File: file, Line: 1, Message: err.Error()}}
	}
	var probs []problem
	collect(doc, verr, &probs)
	if len(probs) == 0 {
		return []*LoadError{{File: file, Line: 1, Message: verr.Error()}}
	}
	sort.SliceStable(probs, func(i, j int) bool {
		if probs[i].line != probs[j].line {
			return probs[i].line < probs[j].line
		}
		return probs[i].depth > probs[j].depth
	})
	out := make([]*LoadError, 0, len(probs))
	seen := map[string]bool{}
	for _, p := range probs {
		e := &LoadError{File: file, Line: p.line, Path: doc.dotted(p.ptr), Message: p.msg}
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}

// problem is one leaf schema failure, placed in the file.
type problem struct {
	line  int
	ptr   string
	depth int
	msg   string
}

func collect(doc *yamlDoc, e *jsonschema.ValidationError, out *[]problem) {
	loc := pointer(e.InstanceLocation...)
	add := func(ptr string, line int, msg string) {
		*out = append(*out, problem{line: line, ptr: ptr, depth: strings.Count(ptr, "/"), msg: msg})
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			add(loc+"/"+escapePointer(m), doc.itemLine(loc), "missing required property")
		}
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			ptr := loc + "/" + escapePointer(p)
			add(ptr, doc.line(ptr), "unknown field")
		}
		return
	case *kind.PropertyNames:
		ptr := doc.findKey(loc, len(e.InstanceLocation), k.Property)
		msg := "invalid name"
		if isDialectSchema(e) || isDialectCause(e) {
			msg = fmt.Sprintf("unknown dialect %q (known: %s)", k.Property, strings.Join(dialectNames(), ", "))
		}
		add(ptr, doc.line(ptr), msg)
		return
	case *kind.Enum:
		msg := k.LocalizedString(printer)
		switch {
		case isDialectSchema(e):
			msg = fmt.Sprintf("unknown dialect %v (known: %s)", display(k.Got), strings.Join(dialectNames(), ", "))
		case strings.HasSuffix(e.SchemaURL, "/fault/properties/kind"):
			msg = fmt.Sprintf("unknown fault kind %v (known: %s)", display(k.Got), joinAny(k.Want))
		default:
			msg = fmt.Sprintf("got %v, want one of %s", display(k.Got), joinAny(k.Want))
		}
		add(loc, doc.line(loc), msg)
		return
	case *kind.OneOf:
		if len(k.Subschemas) > 0 {
			add(loc, doc.itemLine(loc), "matches more than one alternative")
			return
		}
		// When every alternative only misses a property, say which
		// properties would do ("needs one of text, blob").
		var names []string
		for _, c := range e.Causes {
			if r, ok := leafKind(c).(*kind.Required); ok && len(r.Missing) == 1 {
				names = append(names, r.Missing[0])
			} else {
				names = nil
				break
			}
		}
		if len(names) == len(e.Causes) && len(names) > 0 {
			add(loc, doc.itemLine(loc), "needs exactly one of "+strings.Join(names, ", "))
			return
		}
	}
	if len(e.Causes) == 0 {
		add(loc, doc.line(loc), e.ErrorKind.LocalizedString(printer))
		return
	}
	for _, c := range e.Causes {
		collect(doc, c, out)
	}
}

// findKey locates the key a propertyNames error is about. The validator
// hands such errors a location slice it later reuses (so it may name a
// sibling), hence the search: the key under loc if there is one, else the
// key of that name at the same depth, else loc's key.
func (d *yamlDoc) findKey(loc string, depth int, name string) string {
	want := loc + "/" + escapePointer(name)
	if _, ok := d.keyLines[want]; ok {
		return want
	}
	var found []string
	for ptr := range d.keyLines {
		if strings.Count(ptr, "/") == depth+1 && strings.HasSuffix(ptr, "/"+escapePointer(name)) {
			found = append(found, ptr)
		}
	}
	if len(found) == 0 {
		return want
	}
	sort.Strings(found)
	return found[0]
}

// leafKind follows single-cause wrappers ($ref, groups) to the kind that
// failed.
func leafKind(e *jsonschema.ValidationError) jsonschema.ErrorKind {
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	return e.ErrorKind
}

func isDialectSchema(e *jsonschema.ValidationError) bool {
	return strings.HasSuffix(e.SchemaURL, "#/$defs/dialect")
}

func isDialectCause(e *jsonschema.ValidationError) bool {
	for _, c := range e.Causes {
		if isDialectSchema(c) || isDialectCause(c) {
			return true
		}
	}
	return false
}

// dialectNames lists the provider dialects; a test keeps the schema's
// enum equal to it.
func dialectNames() []string {
	out := make([]string, len(conv.Dialects))
	for i, d := range conv.Dialects {
		out[i] = string(d)
	}
	return out
}

func display(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func joinAny(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		if s, ok := v.(string); ok {
			parts[i] = s
		} else {
			parts[i] = display(v)
		}
	}
	return strings.Join(parts, ", ")
}
