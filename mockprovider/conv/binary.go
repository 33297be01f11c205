package conv

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
)

// The journal keeps every decoded conversation for as long as its budget
// allows, and a live heap of pointer graphs (turns, parts, argument maps)
// is what the garbage collector spends its time marking. So the journal
// keeps a conversation as one flat byte slice, written here, and decodes
// it only when someone reads the journal. The encoding is exact: decoding
// gives a value reflect.DeepEqual to the original (nil and empty slices,
// float64 and json.Number kept apart). It is private to one process and
// has no compatibility promise.

const binaryVersion = 1

// errCorrupt is returned for bytes this file did not write.
var errCorrupt = errors.New("conv: corrupt binary conversation")

// MarshalBinary encodes the conversation for the journal.
func (c *Conversation) MarshalBinary() ([]byte, error) {
	return c.AppendBinary(make([]byte, 0, 256))
}

// AppendBinary appends the encoding of c to b.
func (c *Conversation) AppendBinary(b []byte) ([]byte, error) {
	b = append(b, binaryVersion)
	b = putString(b, string(c.Dialect))
	b = putString(b, c.Model)
	b = putString(b, c.System)
	b = putLen(b, len(c.Tools), c.Tools == nil)
	for i := range c.Tools {
		t := &c.Tools[i]
		b = putString(b, t.Name)
		b = putString(b, t.Description)
		b = putBytes(b, t.Parameters)
		b = putBool(b, t.Strict)
	}
	b = putString(b, string(c.ToolChoice.Mode))
	b = putString(b, c.ToolChoice.Name)
	b = putLen(b, len(c.Turns), c.Turns == nil)
	for i := range c.Turns {
		t := &c.Turns[i]
		b = putString(b, string(t.Role))
		b = putLen(b, len(t.Parts), t.Parts == nil)
		for j := range t.Parts {
			b = appendPart(b, &t.Parts[j])
		}
	}
	b = putBool(b, c.Stream)
	b = putString(b, c.PreviousResponseID)
	b = binary.AppendUvarint(b, uint64(c.Controls.MaxOutputTokens))
	b = putLen(b, len(c.Controls.StopSequences), c.Controls.StopSequences == nil)
	for _, s := range c.Controls.StopSequences {
		b = putString(b, s)
	}
	b = putBool(b, c.Controls.SerialCalls)
	return b, nil
}

func appendPart(b []byte, p *Part) []byte {
	b = putString(b, string(p.Kind))
	b = putString(b, p.Text)
	b = putBool(b, p.Call != nil)
	if c := p.Call; c != nil {
		b = putString(b, c.ID)
		b = putString(b, c.Name)
		b = appendObject(b, c.Arguments)
		b = putString(b, c.ItemID)
		b = putString(b, c.ThoughtSignature)
	}
	b = putBool(b, p.Result != nil)
	if r := p.Result; r != nil {
		b = putString(b, r.CallID)
		b = putString(b, r.Name)
		b = putLen(b, len(r.Content), r.Content == nil)
		for k := range r.Content {
			b = appendContent(b, &r.Content[k])
		}
		b = putBool(b, r.IsError)
		b = appendObject(b, r.Structured)
	}
	b = putBool(b, p.Reasoning != nil)
	if r := p.Reasoning; r != nil {
		b = putString(b, r.ID)
		b = putString(b, r.EncryptedContent)
		b = putString(b, r.Summary)
		b = putBool(b, r.Redacted)
	}
	b = putBool(b, p.Media != nil)
	if p.Media != nil {
		b = appendContent(b, p.Media)
	}
	return b
}

func appendContent(b []byte, c *Content) []byte {
	b = putString(b, string(c.Type))
	b = putString(b, c.Text)
	b = putString(b, c.MIMEType)
	b = putString(b, c.Data)
	b = putString(b, c.URL)
	return putString(b, c.DisplayName)
}

// Tags of the values a JSON decoder puts in an `any`.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagFloat
	tagNumber // json.Number
	tagString
	tagArray
	tagObject
	tagNilArray
	tagNilObject
	tagJSON // anything else, as JSON (decoded back as a generic value)
)

func appendObject(b []byte, m map[string]any) []byte {
	if m == nil {
		return append(b, tagNilObject)
	}
	b = append(b, tagObject)
	b = binary.AppendUvarint(b, uint64(len(m)))
	for k, v := range m {
		b = putString(b, k)
		b = appendValue(b, v)
	}
	return b
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, tagNull)
	case bool:
		if v {
			return append(b, tagTrue)
		}
		return append(b, tagFalse)
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(v))
	case json.Number:
		return putString(append(b, tagNumber), string(v))
	case string:
		return putString(append(b, tagString), v)
	case []any:
		if v == nil {
			return append(b, tagNilArray)
		}
		b = binary.AppendUvarint(append(b, tagArray), uint64(len(v)))
		for _, e := range v {
			b = appendValue(b, e)
		}
		return b
	case map[string]any:
		return appendObject(b, v)
	default:
		raw, err := json.Marshal(v)
		if err != nil {
			return append(b, tagNull)
		}
		return putBytes(append(b, tagJSON), raw)
	}
}

func putString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// putBytes keeps nil and empty apart: length+1, 0 for nil.
func putBytes(b []byte, p []byte) []byte {
	if p == nil {
		return append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(p))+1)
	return append(b, p...)
}

// putLen writes a slice length as length+1, 0 for a nil slice.
func putLen(b []byte, n int, isNil bool) []byte {
	if isNil {
		return append(b, 0)
	}
	return binary.AppendUvarint(b, uint64(n)+1)
}

func putBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// UnmarshalBinary decodes what MarshalBinary wrote. It never panics on
// other bytes: it returns an error.
func (c *Conversation) UnmarshalBinary(data []byte) error {
	d := decoder{b: data}
	if d.byte() != binaryVersion {
		return errCorrupt
	}
	var out Conversation
	out.Dialect = Dialect(d.string())
	out.Model = d.string()
	out.System = d.string()
	if n, ok := d.len(); ok {
		out.Tools = make([]Tool, n)
		for i := range out.Tools {
			t := &out.Tools[i]
			t.Name = d.string()
			t.Description = d.string()
			t.Parameters = d.bytes()
			t.Strict = d.bool()
		}
	}
	out.ToolChoice.Mode = ToolChoiceMode(d.string())
	out.ToolChoice.Name = d.string()
	if n, ok := d.len(); ok {
		out.Turns = make([]Turn, n)
		for i := range out.Turns {
			t := &out.Turns[i]
			t.Role = Role(d.string())
			if m, ok := d.len(); ok {
				t.Parts = make([]Part, m)
				for j := range t.Parts {
					d.part(&t.Parts[j])
				}
			}
		}
	}
	out.Stream = d.bool()
	out.PreviousResponseID = d.string()
	out.Controls.MaxOutputTokens = int64(d.uvarint())
	if n, ok := d.len(); ok {
		out.Controls.StopSequences = make([]string, n)
		for i := range out.Controls.StopSequences {
			out.Controls.StopSequences[i] = d.string()
		}
	}
	out.Controls.SerialCalls = d.bool()
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return errCorrupt
	}
	*c = out
	return nil
}

type decoder struct {
	b     []byte
	err   error
	depth int
}

// maxDepth bounds nesting as encoding/json does, so corrupt input cannot
// recurse without end.
const maxDepth = 10000

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count reads a length that must fit in what is left (every element
// takes at least one byte), so corrupt input cannot ask for a huge slice.
func (d *decoder) count(v uint64) int {
	if v > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) take(n int) []byte {
	if n > len(d.b) {
		d.fail()
		return nil
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) string() string { return string(d.take(d.count(d.uvarint()))) }

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return nil
	}
	return append([]byte{}, d.take(d.count(n-1))...)
}

func (d *decoder) bool() bool { return d.byte() == 1 }

// len reads a slice length; ok is false for a nil slice.
func (d *decoder) len() (int, bool) {
	n := d.uvarint()
	if n == 0 || d.err != nil {
		return 0, false
	}
	return d.count(n - 1), d.err == nil
}

func (d *decoder) part(p *Part) {
	p.Kind = PartKind(d.string())
	p.Text = d.string()
	if d.bool() {
		c := &Call{}
		c.ID = d.string()
		c.Name = d.string()
		c.Arguments = d.object()
		c.ItemID = d.string()
		c.ThoughtSignature = d.string()
		p.Call = c
	}
	if d.bool() {
		r := &Result{}
		r.CallID = d.string()
		r.Name = d.string()
		if n, ok := d.len(); ok {
			r.Content = make([]Content, n)
			for k := range r.Content {
				d.content(&r.Content[k])
			}
		}
		r.IsError = d.bool()
		r.Structured = d.object()
		p.Result = r
	}
	if d.bool() {
		p.Reasoning = &Reasoning{ID: d.string(), EncryptedContent: d.string(), Summary: d.string(), Redacted: d.bool()}
	}
	if d.bool() {
		p.Media = &Content{}
		d.content(p.Media)
	}
}

func (d *decoder) content(c *Content) {
	c.Type = ContentType(d.string())
	c.Text = d.string()
	c.MIMEType = d.string()
	c.Data = d.string()
	c.URL = d.string()
	c.DisplayName = d.string()
}

// object reads what appendObject wrote.
func (d *decoder) object() map[string]any {
	switch d.byte() {
	case tagNilObject:
		return nil
	case tagObject:
		return d.objectBody()
	}
	d.fail()
	return nil
}

func (d *decoder) objectBody() map[string]any {
	n := d.count(d.uvarint())
	m := make(map[string]any, n)
	for range n {
		if d.err != nil {
			return nil
		}
		k := d.string()
		m[k] = d.value()
	}
	return m
}

func (d *decoder) value() any {
	if d.depth++; d.depth > maxDepth {
		d.fail()
		return nil
	}
	defer func() { d.depth-- }()
	switch d.byte() {
	case tagNull:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagFloat:
		raw := d.take(8)
		if raw == nil {
			return nil
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(raw))
	case tagNumber:
		return json.Number(d.string())
	case tagString:
		return d.string()
	case tagArray:
		n := d.count(d.uvarint())
		a := make([]any, n)
		for i := range a {
			if d.err != nil {
				return nil
			}
			a[i] = d.value()
		}
		return a
	case tagNilArray:
		return []any(nil)
	case tagObject:
		return d.objectBody()
	case tagNilObject:
		return map[string]any(nil)
	case tagJSON:
		var v any
		if raw := d.bytes(); raw != nil && json.Unmarshal(raw, &v) != nil {
			d.fail()
		}
		return v
	}
	d.fail()
	return nil
}
