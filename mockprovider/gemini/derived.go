package gemini

import "github.com/toolwire/toolwire/mockprovider/conv"

// A content's conversation turn and its shape (what the rules ask of its
// parts) depend on that content alone, so they are made once, when the
// content is decoded, and a session keeps them with the content: a
// request resending a long conversation copies them instead of making
// them again. Read only once made (a turn's values are shared with every
// conversation built from it; a conversation is read only).

// contentShape is what the rules ask of a content's parts, found once:
// the rules look at every content of every request, and a content with
// nothing a part-by-part rule reports is passed over by it.
type contentShape struct {
	calls, responses int // functionCall and functionResponse parts
	// callsWithoutID counts the functionCall parts with no id.
	callsWithoutID int
	// emptyPart: a part with no data; multimodal: a functionResponse
	// with parts; notStruct: a call's args or a response's response that
	// is not a Struct (an object).
	emptyPart, multimodal, notStruct bool
}

func (s contentShape) isCallTurn() bool     { return s.calls > 0 }
func (s contentShape) isResponseTurn() bool { return s.responses > 0 }
func (s contentShape) isMixed() bool        { return s.calls > 0 && s.responses > 0 }

func shapeOf(c *Content) contentShape {
	var s contentShape
	for j := range c.Parts {
		p := &c.Parts[j]
		if fc := p.FunctionCall; fc != nil {
			s.calls++
			if fc.ID == "" {
				s.callsWithoutID++
			}
			s.notStruct = s.notStruct || !isStructValue(fc.Args)
		}
		if fr := p.FunctionResponse; fr != nil {
			s.responses++
			s.multimodal = s.multimodal || len(fr.Parts) > 0
			s.notStruct = s.notStruct || !isStructValue(fr.Response)
		}
		s.emptyPart = s.emptyPart || !p.hasData()
	}
	return s
}

// derive makes the turns and shapes of a request decoded whole.
func (r *Request) derive() {
	if len(r.Contents) == 0 {
		return
	}
	r.turns = make([]conv.Turn, len(r.Contents))
	r.shapes = make([]contentShape, len(r.Contents))
	for i := range r.Contents {
		r.turns[i] = toTurn(&r.Contents[i])
		r.shapes[i] = shapeOf(&r.Contents[i])
	}
	r.paired = pairingOf(r)
}

// contentShapes is the shape of each content (made now for a request
// built by hand).
func (r *Request) contentShapes() []contentShape {
	if len(r.shapes) == len(r.Contents) {
		return r.shapes
	}
	shapes := make([]contentShape, len(r.Contents))
	for i := range r.Contents {
		shapes[i] = shapeOf(&r.Contents[i])
	}
	return shapes
}
