package conv

// CloneValue deep-copies decoded JSON (maps and slices; strings, numbers
// and booleans are values already), keeping nil maps and slices nil so
// the copy encodes exactly as the original.
func CloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = CloneValue(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneValue(e)
		}
		return out
	}
	return v
}

// Clone deep-copies a conversation: the journal hands each reader its own.
func (c *Conversation) Clone() *Conversation {
	if c == nil {
		return nil
	}
	out := *c
	out.Tools = cloneSlice(c.Tools, func(t Tool) Tool {
		t.Parameters = cloneSlice(t.Parameters, func(b byte) byte { return b })
		return t
	})
	out.Controls.StopSequences = cloneSlice(c.Controls.StopSequences, func(s string) string { return s })
	out.Turns = cloneSlice(c.Turns, func(t Turn) Turn {
		t.Parts = cloneSlice(t.Parts, clonePart)
		return t
	})
	return &out
}

func clonePart(p Part) Part {
	if p.Call != nil {
		call := *p.Call
		call.Arguments, _ = CloneValue(call.Arguments).(map[string]any)
		p.Call = &call
	}
	if p.Result != nil {
		r := *p.Result
		r.Content = cloneSlice(r.Content, func(c Content) Content { return c })
		r.Structured, _ = CloneValue(r.Structured).(map[string]any)
		p.Result = &r
	}
	if p.Reasoning != nil {
		r := *p.Reasoning
		p.Reasoning = &r
	}
	if p.Media != nil {
		m := *p.Media
		p.Media = &m
	}
	return p
}

// cloneSlice copies s element by element, keeping nil nil.
func cloneSlice[T any](s []T, clone func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, e := range s {
		out[i] = clone(e)
	}
	return out
}
