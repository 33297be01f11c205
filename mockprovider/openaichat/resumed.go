package openaichat

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// keptMessage is what a session keeps of one message of its last request
// (package resume): the checks' view, index included, and the members
// its role does not define. Shared read only by the requests that
// resend the message.
type keptMessage struct {
	view   Message
	extras []UnknownMember
	// calls are the message's calls as the prompt renders them, in the
	// order the conversation holds them.
	calls []renderedCall
}

// messagesKept declares what sessions keep of their last request's
// messages.
var messagesKept = resume.New[keptMessage]("messages")

// decodeInSession decodes body, reusing the messages s's last request
// shares with it byte for byte, and keeps it for the next one.
func decodeInSession(s *session.Session, body []byte, lenient bool) (*Request, *wire.APIError) {
	if lenient {
		// Unknown members are collected by re-decoding the whole body.
		return decodeRequest(body, lenient)
	}
	return resume.Decode(messagesKept, s, body, func(plan resume.Plan[keptMessage]) (*Request, []keptMessage, *wire.APIError) {
		return decodePlanned(plan, lenient)
	})
}

// reuseMessages fills req.Messages with the reused messages, then those
// decoded now (ws) at the indexes after them. fresh holds what to keep of
// the new ones, nil when keep is false.
func reuseMessages(req *Request, reused []*keptMessage, ws []chatMessage, keep bool) (fresh []keptMessage) {
	for i := range reused {
		req.Messages[i] = reused[i].view
		req.MessageExtras = append(req.MessageExtras, reused[i].extras...)
		req.renderedCalls = append(req.renderedCalls, reused[i].calls...)
	}
	if keep {
		fresh = make([]keptMessage, 0, len(ws))
	}
	for j := range ws {
		i := len(reused) + j
		before := len(req.MessageExtras)
		takeMessage(&req.Messages[i], i, &ws[j], req)
		if keep {
			m := keptMessage{view: req.Messages[i], extras: req.MessageExtras[before:len(req.MessageExtras):len(req.MessageExtras)]}
			m.calls = renderCalls(&m.view)
			req.renderedCalls = append(req.renderedCalls, m.calls...)
			fresh = append(fresh, m)
		}
	}
	if !keep {
		req.renderedCalls = nil
	}
	return fresh
}

// renderedCall is one call of the conversation with its arguments as
// the prompt text renders them: what a long conversation's request would
// otherwise encode again for every earlier call.
type renderedCall struct {
	id, name string
	args     []byte
}

// renderCalls renders the calls toConversation takes from m.
func renderCalls(m *Message) []renderedCall {
	if m.Role != "assistant" {
		return nil
	}
	var out []renderedCall
	for _, tc := range m.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		args, _ := marshalArguments(callArguments(tc))
		out = append(out, renderedCall{id: tc.ID, name: tc.Name, args: args})
	}
	return out
}

// callsRendered are r's rendered calls when they are c's calls in order
// (nil otherwise: the prompt text then encodes each call).
func callsRendered(r *Request, c *conv.Conversation) []renderedCall {
	if r == nil || r.renderedCalls == nil {
		return nil
	}
	n := 0
	for _, t := range c.Turns {
		for _, p := range t.Parts {
			if p.Call != nil {
				if n >= len(r.renderedCalls) || r.renderedCalls[n].id != p.Call.ID || r.renderedCalls[n].name != p.Call.Name {
					return nil
				}
				n++
			}
		}
	}
	if n != len(r.renderedCalls) {
		return nil
	}
	return r.renderedCalls
}
