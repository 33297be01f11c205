package gemini

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// keptContent is what a session keeps of one content of its last request
// (package resume): the content as decoded, and the Struct values (call
// args, response) of its parts as the conversation reads them — parsing
// them again was most of a long conversation's cost. Shared read only by
// the requests that resend it.
type keptContent struct {
	content Content
	structs []map[string]any // per part; nil for parts without one
}

// contentsKept declares what sessions keep of their last request's
// contents.
var contentsKept = resume.New[keptContent]("contents")

// decodeInSession decodes a generateContent body, reusing the contents
// s's last one shares with it byte for byte.
func decodeInSession(s *session.Session, body []byte, lenient bool) (*Request, *wire.APIError) {
	if lenient {
		// Unknown members are collected from the whole body.
		return decodeBody(body, lenient)
	}
	return resume.Decode(contentsKept, s, body, func(plan resume.Plan[keptContent]) (*Request, []keptContent, *wire.APIError) {
		req := new(Request)
		if _, err := wirejson.Decode(plan.Doc, req, wirejson.Options{}); err != nil {
			if len(plan.Reused) > 0 {
				// resume.Decode decodes the body whole.
				return nil, nil, &wire.APIError{Status: http.StatusBadRequest, Message: err.Error()}
			}
			// Errors are worded, and single values taken for repeated
			// ones, by the full decoder; such a body is not kept.
			req, aerr := decodeBody(plan.Body(), lenient)
			return req, nil, aerr
		}
		if !plan.Keeps() && len(plan.Reused) == 0 {
			// Nothing is shared: the conversation parses the parts' Struct
			// values itself.
			req.BodyLen = len(plan.Body())
			return req, nil, nil
		}
		fresh := make([]keptContent, len(req.Contents))
		for i := range req.Contents {
			fresh[i] = keptContent{content: req.Contents[i], structs: partStructs(&req.Contents[i])}
		}
		all := make([]Content, 0, len(plan.Reused)+len(fresh))
		req.structs = make([][]map[string]any, 0, len(plan.Reused)+len(fresh))
		for _, k := range plan.Reused {
			all = append(all, k.content)
			req.structs = append(req.structs, k.structs)
		}
		for _, k := range fresh {
			req.structs = append(req.structs, k.structs)
		}
		if len(plan.Reused) > 0 {
			req.Contents = append(all, req.Contents...)
		}
		req.BodyLen = len(plan.Body())
		return req, fresh, nil
	})
}

// partStructs parses the Struct values of c's parts once, for every
// request that resends c.
func partStructs(c *Content) []map[string]any {
	out := make([]map[string]any, len(c.Parts))
	for j, p := range c.Parts {
		switch {
		case p.FunctionCall != nil:
			out[j] = structValue(p.FunctionCall.Args)
		case p.FunctionResponse != nil:
			out[j] = structValue(p.FunctionResponse.Response)
		}
	}
	return out
}

// keptStruct is a part's Struct value as parsed when its content was
// first decoded (ok false: parse it now).
type keptStruct struct {
	value map[string]any
	ok    bool
}

// structAt is the kept Struct value of part j of content i.
func (r *Request) structAt(i, j int) keptStruct {
	if i < len(r.structs) && j < len(r.structs[i]) {
		return keptStruct{value: r.structs[i][j], ok: true}
	}
	return keptStruct{}
}

// or is the kept value (shared: a conversation is read only, see
// conv.Conversation), or else raw parsed.
func (k keptStruct) or(raw []byte) map[string]any {
	if !k.ok {
		return structValue(raw)
	}
	if k.value == nil {
		return nil
	}
	return k.value
}
