package scenario

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// yamlDoc is a scenario file as plain JSON values plus where each value
// came from, so schema errors (which speak JSON pointers) can name lines.
type yamlDoc struct {
	value any
	// lines maps a JSON pointer to the line of its value; keyLines to the
	// line of the mapping key that holds it (better for "unknown field").
	lines    map[string]int
	keyLines map[string]int
	// arrays holds the pointers of sequences, to print "turns[1]" rather
	// than "turns.1".
	arrays map[string]bool
	// nodes counts the values converted, each alias counted as often as
	// it is expanded; expanding is the line of the outermost alias being
	// expanded (0 when none is), where an error about expansion points.
	nodes     int
	expanding int
}

func parseYAML(file string, data []byte) (*yamlDoc, error) {
	if len(data) > MaxFileSize {
		return nil, tooLarge(file)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &LoadError{File: file, Line: 1, Message: "empty scenario file"}
		}
		return nil, yamlError(file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &LoadError{File: file, Line: extra.Line, Message: "more than one YAML document (one scenario per file)"}
	}
	d := &yamlDoc{lines: map[string]int{}, keyLines: map[string]int{}, arrays: map[string]bool{}}
	v, err := d.convert(file, &root, "", 0)
	if err != nil {
		return nil, err
	}
	d.value = v
	return d, nil
}

// maxNesting bounds how deep values (aliases included) may nest.
const maxNesting = 64

// MaxNodes bounds the values of a scenario once its aliases are expanded.
// Nesting alone does not bound a "billion laughs" file: nine aliases of
// nine aliases, nine levels deep, are a few hundred bytes that expand
// to 387 million values. No scenario needs more than a fraction of this.
const MaxNodes = 100_000

func (d *yamlDoc) convert(file string, n *yaml.Node, ptr string, depth int) (any, error) {
	if depth > maxNesting {
		return nil, &LoadError{File: file, Line: n.Line, Path: d.dotted(ptr), Message: "nested too deeply"}
	}
	if d.nodes++; d.nodes > MaxNodes {
		line := n.Line
		if d.expanding != 0 {
			line = d.expanding
		}
		return nil, &LoadError{File: file, Line: line, Path: d.dotted(ptr),
			Message: fmt.Sprintf("more than %d values, aliases counted as often as they are expanded", MaxNodes)}
	}
	if _, seen := d.lines[ptr]; !seen {
		d.lines[ptr] = n.Line
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, &LoadError{File: file, Line: 1, Message: "empty scenario file"}
		}
		return d.convert(file, n.Content[0], ptr, depth)
	case yaml.AliasNode:
		if d.expanding == 0 {
			d.expanding = n.Line
			defer func() { d.expanding = 0 }()
		}
		return d.convert(file, n.Alias, ptr, depth+1)
	case yaml.SequenceNode:
		d.arrays[ptr] = true
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.convert(file, c, ptr+"/"+strconv.Itoa(i), depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				merged, err := d.convert(file, val, ptr, depth+1)
				if err != nil {
					return nil, err
				}
				m, ok := merged.(map[string]any)
				if !ok {
					return nil, &LoadError{File: file, Line: k.Line, Path: d.dotted(ptr), Message: "merge key << needs a mapping"}
				}
				for mk, mv := range m {
					if _, set := out[mk]; !set {
						out[mk] = mv
					}
				}
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, &LoadError{File: file, Line: k.Line, Path: d.dotted(ptr), Message: "mapping keys must be strings"}
			}
			child := ptr + "/" + escapePointer(k.Value)
			if first, dup := d.keyLines[child]; dup {
				return nil, &LoadError{File: file, Line: k.Line, Path: d.dotted(child), Message: fmt.Sprintf("duplicate key (first at line %d)", first)}
			}
			d.keyLines[child] = k.Line
			v, err := d.convert(file, val, child, depth+1)
			if err != nil {
				return nil, err
			}
			out[k.Value] = v
		}
		return out, nil
	case yaml.ScalarNode:
		return scalar(file, n)
	}
	return nil, &LoadError{File: file, Line: n.Line, Path: d.dotted(ptr), Message: "unsupported YAML node"}
}

// scalar resolves a YAML scalar to the JSON value it denotes.
func scalar(file string, n *yaml.Node) (any, error) {
	var v any
	switch n.ShortTag() {
	case "!!str", "!!binary", "!!timestamp":
		// Timestamps stay text: JSON has no date type and a scenario
		// author who writes a date means the string.
		return n.Value, nil
	case "!!int":
		var i int64
		if err := n.Decode(&i); err != nil {
			var f float64
			if err := n.Decode(&f); err != nil {
				return nil, &LoadError{File: file, Line: n.Line, Message: err.Error()}
			}
			return f, nil
		}
		return i, nil
	}
	if err := n.Decode(&v); err != nil {
		return nil, &LoadError{File: file, Line: n.Line, Message: err.Error()}
	}
	return v, nil
}

var yamlLineRE = regexp.MustCompile(`^yaml: (?:unmarshal errors:\n\s*)?line (\d+): (.*)`)

// yamlError turns a yaml library error ("yaml: line 3: …") into a
// LoadError carrying the line.
func yamlError(file string, err error) error {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &LoadError{File: file, Line: line, Message: m[2]}
	}
	return &LoadError{File: file, Line: 1, Message: strings.TrimPrefix(msg, "yaml: ")}
}

func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func unescapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// pointer joins unescaped tokens into a JSON pointer.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapePointer(t))
	}
	return b.String()
}

// dotted renders a JSON pointer as turns[1].calls[0].name.
func (d *yamlDoc) dotted(ptr string) string {
	if ptr == "" {
		return ""
	}
	var b strings.Builder
	cur := ""
	for _, tok := range strings.Split(ptr[1:], "/") {
		if d.arrays[cur] {
			b.WriteString("[" + tok + "]")
		} else {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(unescapePointer(tok))
		}
		cur += "/" + tok
	}
	return b.String()
}

// line is the best line for an error at ptr: the key that holds the value
// if there is one, else the value, else the nearest enclosing value.
func (d *yamlDoc) line(ptr string) int {
	for {
		if l, ok := d.keyLines[ptr]; ok {
			return l
		}
		if l, ok := d.lines[ptr]; ok {
			return l
		}
		if ptr == "" {
			return 1
		}
		ptr = ptr[:strings.LastIndex(ptr, "/")]
	}
}

// itemLine is the line of a value itself (for a sequence item, its "- "
// line), falling back to line().
func (d *yamlDoc) itemLine(ptr string) int {
	if l, ok := d.lines[ptr]; ok && d.keyLines[ptr] == 0 {
		return l
	}
	return d.line(ptr)
}
