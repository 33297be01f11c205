package gemini

import "github.com/toolwire/toolwire/mockprovider/conv"

// contentDerived is what the conversation and the rules read of one
// content. It depends on that content alone, so it is made once, when the
// content is decoded, and a session keeps it with the content: a request
// resending a long conversation copies it instead of making it again.
// Read only once made (the turn's values are shared with every
// conversation built from it; a conversation is read only).
type contentDerived struct {
	turn  conv.Turn
	shape contentShape
}

// contentShape is what the turn rules ask of a content's parts, counted
// once: the pairing rules look at every content of every request.
type contentShape struct {
	calls, responses int // functionCall and functionResponse parts
}

func (s contentShape) isCallTurn() bool     { return s.calls > 0 }
func (s contentShape) isResponseTurn() bool { return s.responses > 0 }
func (s contentShape) isMixed() bool        { return s.calls > 0 && s.responses > 0 }

func deriveContent(c *Content) contentDerived {
	return contentDerived{turn: toTurn(c), shape: shapeOf(c)}
}

func shapeOf(c *Content) contentShape {
	var s contentShape
	for j := range c.Parts {
		if c.Parts[j].FunctionCall != nil {
			s.calls++
		}
		if c.Parts[j].FunctionResponse != nil {
			s.responses++
		}
	}
	return s
}

// derive makes what is derived of every content of a request decoded
// whole.
func (r *Request) derive() {
	if len(r.Contents) == 0 {
		return
	}
	r.derived = make([]contentDerived, len(r.Contents))
	for i := range r.Contents {
		r.derived[i] = deriveContent(&r.Contents[i])
	}
}

// hasDerived reports whether r.derived describes r.Contents (a request
// built by hand has none).
func (r *Request) hasDerived() bool { return len(r.derived) == len(r.Contents) }

func (r *Request) shapeAt(i int) contentShape {
	if r.hasDerived() {
		return r.derived[i].shape
	}
	return shapeOf(&r.Contents[i])
}

func (r *Request) turnAt(i int) conv.Turn {
	if r.hasDerived() {
		return r.derived[i].turn
	}
	return toTurn(&r.Contents[i])
}
