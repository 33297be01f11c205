package conv

// Size estimates the bytes a conversation holds in memory: its strings
// and argument values, and a fixed overhead for each element. The
// journal's byte budget charges it for a kept conversation.
func (c *Conversation) Size() int {
	var m Measure
	return m.Size(c)
}

// Measure is Size for the conversations of one session, one after the
// other: a turn whose parts are the parts of the previous conversation's
// turn at the same index (see sameParts) is charged what it was charged
// then. A session's resumed requests share the turns they resend (a
// conversation is read only, so the same parts hold the same values), so
// a long conversation's journal entry walks its new turns only.
type Measure struct {
	turns []Turn
	sizes []int
}

// Size is c.Size(), measuring only turns that differ from the previous
// conversation measured.
func (m *Measure) Size(c *Conversation) int {
	if c == nil {
		return 0
	}
	n := 256 + len(c.Model) + len(c.System) + len(c.PreviousResponseID) + len(c.ToolChoice.Name)
	for _, s := range c.Controls.StopSequences {
		n += 16 + len(s)
	}
	for _, t := range c.Tools {
		n += 96 + len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	sizes := make([]int, len(c.Turns))
	for i, t := range c.Turns {
		if i < len(m.turns) && sameParts(t.Parts, m.turns[i].Parts) {
			sizes[i] = m.sizes[i]
		} else {
			sizes[i] = turnSize(t)
		}
		n += sizes[i]
	}
	m.turns, m.sizes = c.Turns, sizes
	return n
}

// sameParts reports whether a and b hold the same parts: the same text and
// the very same calls, results and media (a conversation is read only, so
// those hold the same values). A dialect that builds its turns afresh from
// kept calls and results still gets them charged as measured before.
func sameParts(a, b []Part) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 0 && &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func turnSize(t Turn) int {
	n := 48
	for _, p := range t.Parts {
		n += 96 + len(p.Text)
		if call := p.Call; call != nil {
			n += 96 + len(call.ID) + len(call.Name) + len(call.ItemID) + len(call.ThoughtSignature) + valueSize(call.Arguments)
		}
		if r := p.Result; r != nil {
			n += 96 + len(r.CallID) + len(r.Name) + valueSize(r.Structured)
			for _, ct := range r.Content {
				n += contentSize(ct)
			}
		}
		if r := p.Reasoning; r != nil {
			n += 64 + len(r.ID) + len(r.EncryptedContent) + len(r.Summary)
		}
		if m := p.Media; m != nil {
			n += contentSize(*m)
		}
	}
	return n
}

func contentSize(c Content) int {
	return 112 + len(c.Type) + len(c.Text) + len(c.MIMEType) + len(c.Data) + len(c.URL) + len(c.DisplayName)
}

// valueSize estimates decoded JSON: its strings and keys, and an overhead
// for each value.
func valueSize(v any) int {
	switch x := v.(type) {
	case map[string]any:
		n := 48
		for k, e := range x {
			n += 16 + len(k) + valueSize(e)
		}
		return n
	case []any:
		n := 24
		for _, e := range x {
			n += valueSize(e)
		}
		return n
	case string:
		return 16 + len(x)
	}
	return 16
}
