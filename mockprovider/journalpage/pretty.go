package journalpage

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// line is one line of a pretty-printed JSON document, tagged with the
// JSON path of the value it belongs to so a violation's path can be
// highlighted where it sits.
type line struct {
	Indent int
	Key    string // `"name": ` when the value is an object member
	Text   string // the scalar, or an opening/closing bracket
	Comma  bool
	Path   []string
	Hit    bool     // a violation's path covers this line
	Marks  []string // rules whose violation path starts at this line
}

// prettyLines lays raw JSON out one member per line. ok is false when raw
// is not a JSON value (a clipped body): the caller shows it as text.
func prettyLines(raw []byte) (lines []line, ok bool) {
	if !jsontext.Value(raw).IsValid() {
		return nil, false
	}
	p := &printer{}
	if err := p.value(jsontext.Value(raw), nil, 0, "", false); err != nil {
		return nil, false
	}
	return p.lines, true
}

type printer struct{ lines []line }

func (p *printer) value(v jsontext.Value, path []string, indent int, key string, comma bool) error {
	path = path[:len(path):len(path)] // members append to their own copy
	switch v.Kind() {
	case '{', '[':
		open, closing := "{", "}"
		if v.Kind() == '[' {
			open, closing = "[", "]"
		}
		dec := jsontext.NewDecoder(bytes.NewReader(v))
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		var members []member
		for i := 0; dec.PeekKind() != jsontext.Kind(closing[0]); i++ {
			var m member
			if open == "{" {
				k, err := dec.ReadToken()
				if err != nil {
					return err
				}
				m.tok = k.String()
				m.key = string(mustQuote(m.tok)) + ": "
			} else {
				m.tok = itoa(i)
			}
			val, err := dec.ReadValue()
			if err != nil {
				return err
			}
			m.val = val.Clone()
			members = append(members, m)
		}
		if len(members) == 0 {
			p.lines = append(p.lines, line{Indent: indent, Key: key, Text: open + closing, Comma: comma, Path: path})
			return nil
		}
		p.lines = append(p.lines, line{Indent: indent, Key: key, Text: open, Path: path})
		for i, m := range members {
			if err := p.value(m.val, append(path, m.tok), indent+1, m.key, i < len(members)-1); err != nil {
				return err
			}
		}
		p.lines = append(p.lines, line{Indent: indent, Text: closing, Comma: comma, Path: path})
		return nil
	default:
		p.lines = append(p.lines, line{Indent: indent, Key: key, Text: string(v), Comma: comma, Path: path})
		return nil
	}
}

func mustQuote(s string) []byte {
	b, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		return []byte(`"` + s + `"`)
	}
	return b
}

// member is one object member or array element, with its path token.
type member struct {
	key string // `"name": ` for object members, "" for elements
	tok string // the path token: the member name or the element index
	val jsontext.Value
}

// splitPath turns the path spellings the dialects use —
// messages.1.content, messages.[1].role, contents[0].parts[0] — into the
// same tokens.
func splitPath(p string) []string {
	return strings.FieldsFunc(p, func(r rune) bool { return r == '.' || r == '[' || r == ']' })
}

// within reports whether path lies at or under prefix.
func within(path, prefix []string) bool {
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

func itoa(i int) string { return strconv.Itoa(i) }
