package openaichat

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// keptMessage is what a session keeps of one message of its last request
// (package resume): the checks' view, index included, the members its
// role does not define, and what it adds to the conversation. Shared
// read only by the requests that resend the message.
type keptMessage struct {
	view   Message
	extras []UnknownMember
	turn   messageTurn
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
	return resume.Decode(messagesKept, s, body, func(plan resume.Plan[keptMessage]) (*Request, []keptMessage, any, *wire.APIError) {
		req, fresh, outside, err := decodePlanned(plan, lenient)
		if err != nil || fresh == nil || len(req.Unknown) > 0 || len(req.MessageExtras) > 0 {
			return req, fresh, nil, err
		}
		return req, fresh, outside, nil
	})
}

// takeMessages fills req.Messages and req.turns with the reused messages,
// then those decoded now (ws) at the indexes after them. fresh holds what
// to keep of the new ones, nil when keep is false.
func takeMessages(req *Request, reused []*keptMessage, ws []chatMessage, keep bool) (fresh []keptMessage) {
	req.turns, req.turnPrompts = make([]*messageTurn, len(req.Messages)), keep
	for i, m := range reused {
		req.Messages[i] = &m.view
		req.MessageExtras = append(req.MessageExtras, m.extras...)
		req.turns[i] = &m.turn
	}
	// Kept or not, the new messages are made where the session may keep
	// them.
	made := make([]keptMessage, len(ws))
	names := callNames{reused: reused}
	for j := range ws {
		i := len(reused) + j
		m := &made[j]
		before := len(req.MessageExtras)
		takeMessage(&m.view, i, &ws[j], req)
		m.extras = req.MessageExtras[before:len(req.MessageExtras):len(req.MessageExtras)]
		var prev *messageTurn
		if i > 0 {
			prev = req.turns[i-1]
		}
		m.turn = makeTurn(&m.view, prev, &names, keep)
		req.Messages[i], req.turns[i] = &m.view, &m.turn
		settle(&m.turn, req.Messages[:i+1], prev)
	}
	if !keep {
		return nil
	}
	return made
}

// callNames names the results of the messages made now: the last call
// before a result with its id, as a map filled in order would. The calls
// of the reused messages are indexed only when a result's call is not
// among the new ones, which an agent loop's new round never needs.
type callNames struct {
	recent  callNameIndex // the calls of the messages made now
	reused  []*keptMessage
	earlier *callNameIndex // the reused messages' calls, once needed
}

func (x *callNames) add(parts []conv.Part) {
	for _, p := range parts {
		if p.Kind == conv.KindCall {
			x.recent.set(p.Call.ID, p.Call.Name)
		}
	}
}

func (x *callNames) get(id string) string {
	if name, ok := x.recent.lookup(id); ok {
		return name
	}
	if x.earlier == nil {
		x.earlier = &callNameIndex{}
		for _, m := range x.reused {
			for _, p := range m.turn.parts {
				if p.Kind == conv.KindCall {
					x.earlier.set(p.Call.ID, p.Call.Name)
				}
			}
		}
	}
	name, _ := x.earlier.lookup(id)
	return name
}
