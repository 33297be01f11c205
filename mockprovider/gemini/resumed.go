package gemini

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// contentsKept declares what sessions keep of their last request's
// contents (package resume): each content as decoded, shared read only
// by the requests that resend it.
var contentsKept = resume.New[Content]("contents")

// decodeInSession decodes a generateContent body, reusing the contents
// s's last one shares with it byte for byte.
func decodeInSession(s *session.Session, body []byte, lenient bool) (*Request, *wire.APIError) {
	if lenient {
		// Unknown members are collected from the whole body.
		return decodeBody(body, lenient)
	}
	return resume.Decode(contentsKept, s, body, func(plan resume.Plan[Content]) (*Request, []Content, *wire.APIError) {
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
		fresh := req.Contents
		if fresh == nil {
			fresh = []Content{}
		}
		if len(plan.Reused) > 0 {
			all := make([]Content, 0, len(plan.Reused)+len(fresh))
			for _, c := range plan.Reused {
				all = append(all, *c)
			}
			req.Contents = append(all, fresh...)
		}
		req.BodyLen = len(plan.Body())
		return req, fresh, nil
	})
}
