package jsonscan

// Members walks the members of an object one at a time. ParseObject builds
// a slice per object; a decoder that only switches on each key and moves
// on needs none. Like the other helpers it must only be given valid JSON.
type Members struct {
	b []byte
	i int
}

// ObjectMembers starts a walk over the object that is b (surrounding
// whitespace allowed). ok is false for any other kind of value, null
// included: callers handle null themselves.
func ObjectMembers(b []byte) (Members, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '{' {
		return Members{}, false
	}
	return Members{b: b, i: skipSpace(b, 1)}, true
}

// Next returns the next member: rawKey is the key as sent between its
// quotes (escapes not decoded, see PlainKey), value its value span.
// ok is false after the last member.
func (m *Members) Next() (rawKey, value []byte, ok bool) {
	b, i := m.b, m.i
	if i >= len(b) || b[i] != '"' { // '}': the object is done
		return nil, nil, false
	}
	k := stringEnd(b, i)
	rawKey = b[i+1 : k-1]
	i = skipSpace(b, k)
	i = skipSpace(b, i+1) // ':'
	e := end(b, i)
	value = b[i:e:e]
	i = skipSpace(b, e)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	m.i = i
	return rawKey, value, true
}

// Elements walks the elements of an array one at a time (see Members).
type Elements struct {
	b []byte
	i int
}

// ArrayElements starts a walk over the array that is b. ok is false for
// any other kind of value, null included.
func ArrayElements(b []byte) (Elements, bool) {
	b = Trim(b)
	if len(b) == 0 || b[0] != '[' {
		return Elements{}, false
	}
	return Elements{b: b, i: skipSpace(b, 1)}, true
}

// Next returns the next element's span; ok is false after the last.
func (a *Elements) Next() (value []byte, ok bool) {
	b, i := a.b, a.i
	if i >= len(b) || b[i] == ']' {
		return nil, false
	}
	e := end(b, i)
	value = b[i:e:e]
	i = skipSpace(b, e)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	a.i = i
	return value, true
}

// Len counts the remaining elements without consuming them, so a decoder
// can size its slice once.
func (a Elements) Len() int {
	n := 0
	for {
		if _, ok := a.Next(); !ok {
			return n
		}
		n++
	}
}

// Cursor reads a valid JSON document front to back for a decoder that
// descends into the values it knows and skips the rest, so each byte is
// looked at about once. Splitting every level into spans first (as
// ParseObject does) scans the bytes of a value once per level it is
// nested in, which dominated decoding of Gemini bodies, whose function
// schemas sit six levels deep. Like the other helpers it must only be
// given valid JSON.
type Cursor struct {
	b []byte
	i int
}

// NewCursor starts before the first value of b.
func NewCursor(b []byte) *Cursor { return &Cursor{b: b} }

// Peek returns the first byte of the next value (0 at the end).
func (c *Cursor) Peek() byte {
	c.i = skipSpace(c.b, c.i)
	if c.i >= len(c.b) {
		return 0
	}
	return c.b[c.i]
}

// Value returns the span of the next value and moves past it.
func (c *Cursor) Value() []byte {
	c.i = skipSpace(c.b, c.i)
	if c.i >= len(c.b) {
		return nil
	}
	start := c.i
	c.i = end(c.b, start)
	return c.b[start:c.i:c.i]
}

// Enter moves into the next value if it opens with open ('{' or '['),
// and reports whether it did.
func (c *Cursor) Enter(open byte) bool {
	if c.Peek() != open {
		return false
	}
	c.i++
	return true
}

// NextMember, inside an object, moves past the next member's key and
// colon and returns the key as sent between its quotes (escapes not
// decoded, see PlainKey); the member's value is next. At the end of the
// object it moves past the '}' and returns false.
func (c *Cursor) NextMember() (rawKey []byte, ok bool) {
	if !c.more('}') {
		return nil, false
	}
	k := stringEnd(c.b, c.i)
	rawKey = c.b[c.i+1 : k-1]
	c.i = skipSpace(c.b, k) + 1 // past ':'
	return rawKey, true
}

// NextElement, inside an array, reports whether another element is next;
// at the end of the array it moves past the ']' and returns false.
func (c *Cursor) NextElement() bool { return c.more(']') }

// more skips the comma before a next member or element, or the closing
// byte after the last.
func (c *Cursor) more(closing byte) bool {
	c.i = skipSpace(c.b, c.i)
	if c.i < len(c.b) && c.b[c.i] == ',' {
		c.i = skipSpace(c.b, c.i+1)
	}
	if c.i >= len(c.b) || c.b[c.i] == closing {
		c.i++
		return false
	}
	return true
}

// CountElements returns the number of elements of the array that is the
// next value, without moving, so a decoder can size its slice once.
func (c *Cursor) CountElements() int {
	i := skipSpace(c.b, c.i)
	if i >= len(c.b) || c.b[i] != '[' {
		return 0
	}
	n := 0
	for i = skipSpace(c.b, i+1); i < len(c.b) && c.b[i] != ']'; n++ {
		i = skipSpace(c.b, end(c.b, i))
		if i < len(c.b) && c.b[i] == ',' {
			i = skipSpace(c.b, i+1)
		}
	}
	return n
}

// PlainKey reports whether a raw key means exactly its bytes: printable
// ASCII without escapes, so no unescaping or UTF-8 repair changes it.
func PlainKey(rawKey []byte) bool {
	for _, c := range rawKey {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}
