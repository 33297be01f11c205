package gemini

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// The prompt token estimate is a quarter of the length of json.Marshal's
// encoding of the request's contents, system instruction and tools. The
// functions below compute that length from the Request directly, field by
// field as encoding/json would write it (omitempty, HTML escaping, raw
// messages compacted), instead of running the reflective encoder over the
// whole request on every answer only to count its bytes.

// promptLen is len(json.Marshal(promptDoc{...})), and false where Marshal
// would fail (a raw message that is not valid JSON).
func promptLen(r *Request) (int, bool) {
	ok := true
	// {"c":…,"s":…,"t":…}
	n := len(`{"c":,"s":,"t":}`)
	if r.Contents == nil {
		n += len("null")
	} else {
		n += arrayLen(len(r.Contents))
		for i := range r.Contents {
			n += contentLen(&r.Contents[i], &ok)
		}
	}
	if r.SystemInstruction == nil {
		n += len("null")
	} else {
		n += contentLen(r.SystemInstruction, &ok)
	}
	if r.Tools == nil {
		n += len("null")
	} else {
		n += arrayLen(len(r.Tools))
		for i := range r.Tools {
			n += toolLen(&r.Tools[i], &ok)
		}
	}
	return n, ok
}

// arrayLen is the brackets and commas of an array of n elements.
func arrayLen(n int) int { return 2 + max(n-1, 0) }

// object adds up the members of one JSON object: each member is its
// quoted name, a colon and its value, and members are comma-separated.
type object struct {
	n       int
	members int
}

func (o *object) add(name string, valueLen int) {
	o.n += len(name) + 3 + valueLen // "name":value
	o.members++
}

func (o *object) str(name, s string) { o.add(name, stringLen(s)) }

// raw adds a json.RawMessage member, as Marshal writes it: compacted.
func (o *object) raw(name string, m json.RawMessage, ok *bool) {
	o.add(name, rawLen(m, ok))
}

func (o *object) len() int { return 2 + o.n + max(o.members-1, 0) }

func contentLen(c *Content, ok *bool) int {
	var o object
	if c.Role != "" {
		o.str("role", c.Role)
	}
	if c.Parts == nil {
		o.add("parts", len("null"))
	} else {
		n := arrayLen(len(c.Parts))
		for i := range c.Parts {
			n += partLen(&c.Parts[i], ok)
		}
		o.add("parts", n)
	}
	return o.len()
}

func partLen(p *Part, ok *bool) int {
	var o object
	if p.Text != nil {
		o.str("text", *p.Text)
	}
	if p.Thought {
		o.add("thought", len("true"))
	}
	if p.ThoughtSignature != "" {
		o.str("thoughtSignature", p.ThoughtSignature)
	}
	if fc := p.FunctionCall; fc != nil {
		var c object
		if fc.ID != "" {
			c.str("id", fc.ID)
		}
		c.str("name", fc.Name)
		if len(fc.Args) > 0 {
			c.raw("args", fc.Args, ok)
		}
		o.add("functionCall", c.len())
	}
	if fr := p.FunctionResponse; fr != nil {
		o.add("functionResponse", functionResponseLen(fr, ok))
	}
	if p.InlineData != nil {
		o.add("inlineData", blobLen(p.InlineData))
	}
	if p.FileData != nil {
		o.add("fileData", fileDataLen(p.FileData))
	}
	return o.len()
}

func functionResponseLen(fr *FunctionResponse, ok *bool) int {
	var o object
	if fr.ID != "" {
		o.str("id", fr.ID)
	}
	o.str("name", fr.Name)
	if len(fr.Response) > 0 {
		o.raw("response", fr.Response, ok)
	}
	if len(fr.Parts) > 0 {
		n := arrayLen(len(fr.Parts))
		for _, mp := range fr.Parts {
			var po object
			if mp.InlineData != nil {
				po.add("inlineData", blobLen(mp.InlineData))
			}
			if mp.FileData != nil {
				po.add("fileData", fileDataLen(mp.FileData))
			}
			n += po.len()
		}
		o.add("parts", n)
	}
	if fr.WillContinue != nil {
		if *fr.WillContinue {
			o.add("willContinue", len("true"))
		} else {
			o.add("willContinue", len("false"))
		}
	}
	if fr.Scheduling != "" {
		o.str("scheduling", fr.Scheduling)
	}
	return o.len()
}

func blobLen(b *Blob) int {
	var o object
	o.str("mimeType", b.MIMEType)
	o.str("data", b.Data)
	if b.DisplayName != "" {
		o.str("displayName", b.DisplayName)
	}
	return o.len()
}

func fileDataLen(f *FileData) int {
	var o object
	if f.MIMEType != "" {
		o.str("mimeType", f.MIMEType)
	}
	o.str("fileUri", f.FileURI)
	if f.DisplayName != "" {
		o.str("displayName", f.DisplayName)
	}
	return o.len()
}

func toolLen(t *Tool, ok *bool) int {
	var o object
	if len(t.FunctionDeclarations) > 0 {
		n := arrayLen(len(t.FunctionDeclarations))
		for i := range t.FunctionDeclarations {
			fd := &t.FunctionDeclarations[i]
			var d object
			d.str("name", fd.Name)
			if fd.Description != "" {
				d.str("description", fd.Description)
			}
			if len(fd.Parameters) > 0 {
				d.raw("parameters", fd.Parameters, ok)
			}
			if len(fd.ParametersJSONSchema) > 0 {
				d.raw("parametersJsonSchema", fd.ParametersJSONSchema, ok)
			}
			n += d.len()
		}
		o.add("functionDeclarations", n)
	}
	return o.len()
}

// stringLen is the length of s as encoding/json writes a string with
// HTML escaping on: quotes; \" \\ \b \f \n \r \t as two bytes; other
// control bytes and < > & as \u00XX; U+2028, U+2029 and each invalid
// UTF-8 byte as six bytes; everything else as is.
func stringLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += len(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			n += len(`\u2028`)
		default:
			n += size
		}
		i += size
	}
	return n
}

// rawLen is the length of a raw message as Marshal writes it: compacted
// (whitespace outside strings dropped) with < > & written \u00XX and
// U+2028, U+2029 written \u202X. An invalid one fails the encoding.
func rawLen(m json.RawMessage, ok *bool) int {
	if !jsonscan.Valid(m) {
		*ok = false
		return 0
	}
	n := 0
	for i := 0; i < len(m); i++ {
		switch m[i] {
		case ' ', '\t', '\n', '\r':
			// Whitespace between tokens is dropped.
		case '"':
			end, extra := rawStringLen(m, i)
			n += end - i + extra
			i = end - 1
		default:
			n++
		}
	}
	return n
}

// rawStringLen returns the index just past the string literal at m[i]
// and how many bytes compacting adds to it (HTML characters and line
// separators are escaped; escapes already there are kept as sent).
func rawStringLen(m []byte, i int) (end, extra int) {
	for j := i + 1; j < len(m); j++ {
		c := m[j]
		if !rawStringSpecial[c] {
			continue
		}
		switch c {
		case '"':
			return j + 1, extra
		case '\\':
			j++
		case '<', '>', '&':
			extra += len(`\u003c`) - 1
		case 0xE2:
			if j+2 < len(m) && m[j+1] == 0x80 && m[j+2]&^1 == 0xA8 {
				extra += len(`\u2028`) - 3
				j += 2
			}
		}
	}
	return len(m), extra
}

// rawStringSpecial marks the bytes rawStringLen must look at; the rest of
// a string is copied as is. It is filled once and only read.
var rawStringSpecial = func() (t [256]bool) {
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0xE2} {
		t[c] = true
	}
	return t
}()
