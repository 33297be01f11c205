package openaichat

import "github.com/toolwire/toolwire/mockprovider/conv"

// The prompt caching rules are openaiwire's (shared with Responses); the
// prompt they hash is this rendering of the conversation.

// promptText renders the prompt in the order the model reads it: tools,
// system, then every turn, each part on a line. Its length is the
// prompt-token estimate, and its prefixes are what the cache matches.
func promptText(b []byte, c *conv.Conversation) []byte {
	b = promptHead(b, c)
	for _, t := range c.Turns {
		b = append(append(b, t.Role...), '\n')
		for _, p := range t.Parts {
			b = promptLine(b, p)
		}
	}
	return b
}

// requestPrompt is promptText of c in pieces, and its length: the tools
// and system text, then the lines r's messages made once
// (messageTurn.prompt) when c is the conversation made of r, so a session
// that resends them hashes only what is new (openaiwire.CachedTokens).
func requestPrompt(r *Request, c *conv.Conversation) ([][]byte, int) {
	if r.conv != c || !r.turnPrompts {
		b := promptText(nil, c)
		return [][]byte{b}, len(b)
	}
	pieces := make([][]byte, 0, 1+len(r.turns))
	pieces = append(pieces, promptHead(nil, c))
	size := len(pieces[0])
	for _, t := range r.turns {
		if len(t.prompt) > 0 {
			pieces = append(pieces, t.prompt)
			size += len(t.prompt)
		}
	}
	return pieces, size
}

// promptHead renders the tools and the system text.
func promptHead(b []byte, c *conv.Conversation) []byte {
	for _, t := range c.Tools {
		b = append(append(append(b, "tool "...), t.Name...), '\n')
		b = append(append(b, t.Description...), '\n')
		b = append(append(b, t.Parameters...), '\n')
	}
	if c.System != "" {
		b = append(append(append(b, "system\n"...), c.System...), '\n')
	}
	return b
}

// promptLine renders one part of a turn.
func promptLine(b []byte, p conv.Part) []byte {
	b = append(b, p.Text...)
	if p.Call != nil {
		b = append(append(append(b, p.Call.ID...), ' '), p.Call.Name...)
		args, _ := marshalArguments(p.Call.Arguments)
		b = append(b, args...)
	}
	if p.Result != nil {
		b = append(b, p.Result.CallID...)
		for _, ct := range p.Result.Content {
			b = append(append(b, ct.Text...), ct.Data...)
		}
	}
	if p.Media != nil {
		b = append(append(b, p.Media.URL...), p.Media.Data...)
	}
	return append(b, '\n')
}
