package anthropic

import (
	"bytes"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// messagesKept declares what sessions keep of their last request's
// messages (package resume): each message as the checks read it, shared
// read only by the requests that resend it.
var messagesKept = resume.New[Message]("messages")

// decodeInSession decodes a Messages or count_tokens body, reusing the
// messages s's last Messages request shares with it byte for byte.
func decodeInSession(s *session.Session, body []byte, lenient, countTokens bool) (*Request, *wire.APIError) {
	// Lenient decoding collects unknown members from the whole body;
	// count_tokens bodies are another shape; the cache breakpoints are
	// counted over the wire structs of every message.
	if lenient || countTokens || bytes.Contains(body, []byte(`"cache_control"`)) {
		return decodeRequest(body, lenient, countTokens)
	}
	return resume.Decode(messagesKept, s, body, func(plan resume.Plan[Message]) (*Request, []Message, *wire.APIError) {
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

// parseInputs parses the tool_use inputs of messages a session keeps,
// once for every request that resends them.
func parseInputs(ms []Message) {
	for i := range ms {
		for j := range ms[i].Blocks {
			if b := &ms[i].Blocks[j]; b.Type == "tool_use" {
				b.inputArgs, b.inputRead = arguments(b.Input), true
			}
		}
	}
}

// callArguments are a tool_use's arguments for the conversation: a copy
// of the input parsed when its message was kept (shared: a conversation
// is read only, see conv.Conversation), or else parsed now. A non-object
// input gives {}, null nil.
func (b *Block) callArguments() map[string]any {
	if !b.inputRead {
		return arguments(b.Input)
	}
	if b.inputArgs == nil {
		return nil
	}
	return b.inputArgs
}
