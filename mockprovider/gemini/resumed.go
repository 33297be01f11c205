package gemini

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// keptContent is what a session keeps of one content of its last request
// (package resume): the content as decoded and what the conversation and
// the rules read of it — making those again for every resent content was
// most of a long conversation's cost. Shared read only by the requests
// that resend it.
type keptContent struct {
	content Content
	turn    conv.Turn
	shape   contentShape
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
	return resume.Decode(contentsKept, s, body, func(plan resume.Plan[keptContent]) (*Request, []keptContent, any, *wire.APIError) {
		req := new(Request)
		var err *wirejson.Error
		if prev, ok := plan.Whole.(*Request); ok {
			// Everything outside the contents is the last request's, as
			// decoded then: only the new contents are decoded now.
			*req = *prev
			_, err = wirejson.Decode(plan.Doc, &req.Contents, wirejson.Options{})
		} else {
			_, err = wirejson.Decode(plan.Doc, req, wirejson.Options{})
		}
		if err != nil {
			if len(plan.Reused) > 0 {
				// resume.Decode decodes the body whole.
				return nil, nil, nil, &wire.APIError{Status: http.StatusBadRequest, Message: err.Error()}
			}
			// Errors are worded, and single values taken for repeated
			// ones, by the full decoder; such a body is not kept.
			req, aerr := decodeBody(plan.Body(), lenient)
			return req, nil, nil, aerr
		}
		outside := *req
		outside.Contents = nil
		req.BodyLen = len(plan.Body())
		if !plan.Keeps() && len(plan.Reused) == 0 {
			req.derive()
			return req, nil, nil, nil
		}
		fresh := make([]keptContent, len(req.Contents))
		for i := range req.Contents {
			c := &req.Contents[i]
			fresh[i] = keptContent{content: *c, turn: toTurn(c), shape: shapeOf(c)}
		}
		n := len(plan.Reused) + len(fresh)
		if n > 0 {
			req.turns = make([]conv.Turn, 0, n)
			req.shapes = make([]contentShape, 0, n)
		}
		if len(plan.Reused) > 0 {
			all := make([]Content, 0, n)
			for _, k := range plan.Reused {
				all = append(all, k.content)
				req.turns = append(req.turns, k.turn)
				req.shapes = append(req.shapes, k.shape)
			}
			req.Contents = append(all, req.Contents...)
		}
		for _, k := range fresh {
			req.turns = append(req.turns, k.turn)
			req.shapes = append(req.shapes, k.shape)
		}
		if n > 0 {
			req.paired = pairingOf(req)
		}
		return req, fresh, &outside, nil
	})
}
