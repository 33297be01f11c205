package anthropic

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// messagesKept declares what sessions keep of their last request's
// messages (package resume): each message as the checks read it, with
// what the conversation, the token estimate and the prompt cache (its
// breakpoints, its blocks' hashes) make of it, shared read only by the
// requests that resend it.
var messagesKept = resume.New[Message]("messages")

// decodeInSession decodes a Messages or count_tokens body, reusing the
// messages s's last Messages request shares with it byte for byte.
func decodeInSession(s *session.Session, body []byte, lenient, countTokens bool) (*Request, *wire.APIError) {
	// Lenient decoding collects unknown members from the whole body;
	// count_tokens bodies are another shape.
	if lenient || countTokens {
		return decodeRequest(body, lenient, countTokens)
	}
	return resume.Decode(messagesKept, s, body, func(plan resume.Plan[Message]) (*Request, []Message, any, *wire.APIError) {
		req, fresh, outside, err := decodePlanned(plan, lenient, countTokens)
		if err != nil || len(req.Unknown) > 0 {
			return req, nil, nil, err
		}
		return req, fresh, outside, nil
	})
}

func sessionOf(x *dialect.Exchange) *session.Session {
	if x == nil {
		return nil
	}
	return x.Session
}
