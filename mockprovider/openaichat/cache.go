package openaichat

import "github.com/toolwire/toolwire/mockprovider/conv"

// The prompt caching rules are openaiwire's (shared with Responses); the
// prompt they hash is this rendering of the conversation.

// promptText renders the prompt in the order the model reads it: tools,
// system, then every turn. Its length is the prompt-token estimate, and
// its prefixes are what the cache matches.
func promptText(b []byte, c *conv.Conversation, rendered []renderedCall) []byte {
	for _, t := range c.Tools {
		b = append(append(append(b, "tool "...), t.Name...), '\n')
		b = append(append(b, t.Description...), '\n')
		b = append(append(b, t.Parameters...), '\n')
	}
	if c.System != "" {
		b = append(append(append(b, "system\n"...), c.System...), '\n')
	}
	for _, t := range c.Turns {
		b = append(append(b, t.Role...), '\n')
		for _, p := range t.Parts {
			b = append(b, p.Text...)
			if p.Call != nil {
				b = append(append(append(b, p.Call.ID...), ' '), p.Call.Name...)
				if len(rendered) > 0 {
					b = append(b, rendered[0].args...)
					rendered = rendered[1:]
				} else {
					args, _ := marshalArguments(p.Call.Arguments)
					b = append(b, args...)
				}
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
			b = append(b, '\n')
		}
	}
	return b
}
