package anthropic

import (
	"bytes"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// messagesKept declares what sessions keep of their last request's
// messages (package resume): each message as the checks read it, with
// what the conversation and the token estimate make of it, shared read
// only by the requests that resend it.
var messagesKept = resume.New[Message]("messages")

// decodeInSession decodes a Messages or count_tokens body, reusing the
// messages s's last Messages request shares with it byte for byte.
func decodeInSession(s *session.Session, body []byte, lenient, countTokens bool) (*Request, *wire.APIError) {
	// Lenient decoding collects unknown members from the whole body;
	// count_tokens bodies are another shape.
	if lenient || countTokens {
		return decodeRequest(body, lenient, countTokens)
	}
	return resume.Decode(messagesKept, s, body, func(plan resume.Plan[Message]) (*Request, []Message, *wire.APIError) {
		// The cache breakpoints are counted over the wire structs of
		// every message, so a body that mentions cache_control is decoded
		// whole and not kept. Kept messages therefore never mention it,
		// and the document (the body less the messages reused, which
		// cannot hold part of the name either) tells for the body.
		if bytes.Contains(plan.Doc, []byte(`"cache_control"`)) {
			req, err := decodeRequest(plan.Body(), lenient, countTokens)
			return req, nil, err
		}
		req, fresh, err := decodePlanned(plan, lenient, countTokens)
		if err == nil && len(req.Unknown) > 0 {
			fresh = nil
		}
		return req, fresh, err
	})
}

func sessionOf(x *dialect.Exchange) *session.Session {
	if x == nil {
		return nil
	}
	return x.Session
}
