package bedrock

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// keptMessage is what a session keeps of one message of its last request
// (package resume): the message as decoded, its conversation turn, whose
// tool inputs and JSON results were parsed once — converting them again
// was a quarter of a long conversation's cost — and its violations of the
// rules that check one message at a time (messageChecks). Shared read
// only by the requests that resend it (a conversation is read only, see
// conv.Conversation).
type keptMessage struct {
	message    Message
	turn       conv.Turn
	violations [messageSlots][]rules.Violation
}

// messagesKept declares what sessions keep of their last request's
// messages.
var messagesKept = resume.New[keptMessage]("messages")

// decodeInSession decodes a Converse body, reusing the messages s's last
// one shares with it byte for byte (s nil: the body is decoded whole). It
// decodes strictly first, and leniently only a body that has unknown
// members or errors: only a body without unknown members is resumed or
// kept, as the lenient decode lists them over the whole body.
func decodeInSession(s *session.Session, body []byte) (*Request, *wire.APIError) {
	return resume.Decode(messagesKept, s, body, func(plan resume.Plan[keptMessage]) (*Request, []keptMessage, any, *wire.APIError) {
		var req *Request
		ok := false
		if prev, whole := plan.Whole.(*Request); whole {
			// Everything outside the messages is the last request's, as
			// decoded then: only the new messages are decoded now.
			req = new(Request)
			*req = *prev
			_, err := wirejson.Decode(plan.Doc, &req.Messages, wirejson.Options{})
			ok = err == nil
		} else {
			req, ok = decodeStrict(plan.Doc)
		}
		if !ok {
			if len(plan.Reused) > 0 {
				// resume.Decode decodes the body whole.
				return nil, nil, nil, &wire.APIError{Status: http.StatusBadRequest}
			}
			req, aerr := decodeLenient(plan.Body())
			return req, nil, nil, aerr
		}
		// What the session keeps for the next request: the members
		// outside the messages, as decoded.
		outside := &Request{}
		*outside = *req
		outside.Messages = nil
		req.BodyLen = len(plan.Body())
		if !plan.Keeps() && len(plan.Reused) == 0 {
			return req, nil, nil, nil
		}
		fresh := make([]keptMessage, len(req.Messages))
		if len(plan.Reused) > 0 {
			messages := make([]Message, 0, len(plan.Reused)+len(fresh))
			for _, k := range plan.Reused {
				messages = append(messages, k.message)
			}
			req.Messages = append(messages, req.Messages...)
		}
		if len(req.Messages) == 0 {
			return req, fresh, outside, nil
		}
		req.kept = make([]*keptMessage, 0, len(req.Messages))
		req.kept = append(req.kept, plan.Reused...)
		for j := range fresh {
			i := len(plan.Reused) + j
			m := req.Messages[i]
			fresh[j] = keptMessage{message: m, turn: toTurn(m), violations: messageViolations(req.Messages, i)}
			req.kept = append(req.kept, &fresh[j])
		}
		return req, fresh, outside, nil
	})
}
