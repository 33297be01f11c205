// Package jsonview lays a JSON body out for people: one member per line,
// each line tagged with the JSON path of the value it belongs to, so that
// a violation's path can be highlighted where it sits. The journal page
// and the conformance reports share it; Focus shortens a body around a
// path so that the highlighted member survives a size limit.
package jsonview

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Line is one line of a pretty-printed JSON document.
type Line struct {
	Indent int
	Key    string // `"name": ` when the value is an object member
	Text   string // the scalar, or an opening/closing bracket
	Comma  bool
	Path   []string
	Hit    bool     // a marked path covers this line
	Marks  []string // labels of the marked paths that start at this line
}

// String is the line as printed, two spaces an indent level.
func (l Line) String() string {
	s := strings.Repeat("  ", l.Indent) + l.Key + l.Text
	if l.Comma {
		s += ","
	}
	return s
}

// Lines lays raw JSON out one member per line. ok is false when raw is
// not a JSON value (a clipped body): the caller shows it as text.
func Lines(raw []byte) (lines []Line, ok bool) {
	if !jsontext.Value(raw).IsValid() {
		return nil, false
	}
	p := &printer{}
	if err := p.value(jsontext.Value(raw), nil, 0, "", false); err != nil {
		return nil, false
	}
	return p.lines, true
}

// Mark flags every line at or under path as a hit and adds label (when
// not empty) to the marks of the first of them. It reports whether the
// path was found; an empty path is never found.
func Mark(lines []Line, path, label string) (found bool) {
	p := SplitPath(path)
	if len(p) == 0 {
		return false
	}
	for i := range lines {
		l := &lines[i]
		if !Within(l.Path, p) {
			continue
		}
		if !found && label != "" {
			l.Marks = append(l.Marks, label)
		}
		l.Hit, found = true, true
	}
	return found
}

type printer struct{ lines []Line }

func (p *printer) value(v jsontext.Value, path []string, indent int, key string, comma bool) error {
	path = path[:len(path):len(path)] // members append to their own copy
	switch v.Kind() {
	case '{', '[':
		open, closing := "{", "}"
		if v.Kind() == '[' {
			open, closing = "[", "]"
		}
		members, err := split(v)
		if err != nil {
			return err
		}
		if len(members) == 0 {
			p.lines = append(p.lines, Line{Indent: indent, Key: key, Text: open + closing, Comma: comma, Path: path})
			return nil
		}
		p.lines = append(p.lines, Line{Indent: indent, Key: key, Text: open, Path: path})
		for i, m := range members {
			k := ""
			if open == "{" {
				k = string(quote(m.tok)) + ": "
			}
			if err := p.value(m.val, append(path, m.tok), indent+1, k, i < len(members)-1); err != nil {
				return err
			}
		}
		p.lines = append(p.lines, Line{Indent: indent, Text: closing, Comma: comma, Path: path})
		return nil
	default:
		p.lines = append(p.lines, Line{Indent: indent, Key: key, Text: string(v), Comma: comma, Path: path})
		return nil
	}
}

// member is one object member or array element with its path token: the
// member name or the element index.
type member struct {
	tok string
	val jsontext.Value
}

// split reads the members of an object or the elements of an array.
func split(v jsontext.Value) ([]member, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(v))
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	object := v.Kind() == '{'
	var members []member
	for i := 0; dec.PeekKind() != '}' && dec.PeekKind() != ']'; i++ {
		var m member
		if object {
			k, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			m.tok = k.String()
		} else {
			m.tok = strconv.Itoa(i)
		}
		val, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		m.val = val.Clone()
		members = append(members, m)
	}
	return members, nil
}

func quote(s string) []byte {
	b, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		return []byte(`"` + s + `"`)
	}
	return b
}

// SplitPath turns the path spellings the dialects use —
// messages.1.content, messages.[1].role, contents[0].parts[0] — into the
// same tokens.
func SplitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
}

// Within reports whether path lies at or under prefix.
func Within(path, prefix []string) bool {
	if len(prefix) == 0 || len(path) < len(prefix) {
		return false
	}
	for i := range prefix {
		if path[i] != prefix[i] {
			return false
		}
	}
	return true
}
