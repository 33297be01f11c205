package openaichat

import (
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
	}
	if keep {
		fresh = make([]keptMessage, 0, len(ws))
	}
	for j := range ws {
		i := len(reused) + j
		before := len(req.MessageExtras)
		takeMessage(&req.Messages[i], i, &ws[j], req)
		if keep {
			fresh = append(fresh, keptMessage{view: req.Messages[i], extras: req.MessageExtras[before:len(req.MessageExtras):len(req.MessageExtras)]})
		}
	}
	return fresh
}
