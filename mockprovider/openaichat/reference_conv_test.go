package openaichat

import (
	"encoding/json"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// The request-to-conversation mapping as it was before the call-name
// index and the argument fast path, kept as the reference
// FuzzConversationMatchesReference holds toConversation to.

// refToConversation maps the request onto the neutral model. It never fails:
// in lenient mode a request breaking a rule still reaches the model, so
// every field is read defensively.
func refToConversation(r *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.OpenAIChat, Model: r.Model, Stream: r.Stream, Turns: []conv.Turn{}}
	for _, t := range r.Tools {
		if t.Type != "function" || !t.HasName {
			continue
		}
		c.Tools = append(c.Tools, conv.Tool{Name: t.Name, Description: t.Description, Parameters: t.Parameters, Strict: t.Strict})
	}
	switch r.ToolChoice.Mode {
	case "none":
		c.ToolChoice.Mode = conv.ToolChoiceNone
	case "required":
		c.ToolChoice.Mode = conv.ToolChoiceRequired
	case "function":
		c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: r.ToolChoice.Name}
	default:
		c.ToolChoice.Mode = conv.ToolChoiceAuto
	}

	callNames := map[string]string{} // call id → function name, to name results
	var system []string
	resultsOpen := false // the last turn is a run of tool messages
	for _, m := range r.Messages {
		switch m.Role {
		case "system", "developer":
			if s := textOf(m); s != "" {
				system = append(system, s)
			}
			resultsOpen = false
		case "user":
			c.Turns = append(c.Turns, conv.Turn{Role: conv.User, Parts: userParts(m)})
			resultsOpen = false
		case "assistant":
			c.Turns = append(c.Turns, conv.Turn{Role: conv.Assistant, Parts: refAssistantParts(m, callNames)})
			resultsOpen = false
		case "tool":
			// Consecutive tool messages answer one batch: one user turn of
			// results, as Anthropic and Gemini carry them.
			part := conv.Part{Kind: conv.KindResult, Result: &conv.Result{CallID: m.ToolCallID, Name: callNames[m.ToolCallID], Content: resultContent(m)}}
			if resultsOpen {
				last := c.LastTurn()
				last.Parts = append(last.Parts, part)
			} else {
				c.Turns = append(c.Turns, conv.Turn{Role: conv.User, Parts: []conv.Part{part}})
				resultsOpen = true
			}
		default:
			// Legacy "function" messages predate tool calls; they carry
			// nothing the neutral model can use.
		}
	}
	c.System = strings.Join(system, "\n")
	return c
}

func refAssistantParts(m Message, callNames map[string]string) []conv.Part {
	parts := []conv.Part{}
	if m.ContentIsArray {
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				parts = append(parts, conv.Part{Kind: conv.KindText, Text: p.Text})
			case "refusal":
				parts = append(parts, conv.Part{Kind: conv.KindRefusal, Text: p.Refusal})
			}
		}
	} else if m.Text != "" {
		parts = append(parts, conv.Part{Kind: conv.KindText, Text: m.Text})
	}
	for _, tc := range m.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		callNames[tc.ID] = tc.Name
		parts = append(parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: tc.ID, Name: tc.Name, Arguments: refParseArguments(tc.Arguments)}})
	}
	if m.Refusal != "" {
		parts = append(parts, conv.Part{Kind: conv.KindRefusal, Text: m.Refusal})
	}
	return parts
}

// refParseArguments turns replayed arguments into the neutral object form:
// a JSON-object string is parsed; an object sent where a string belongs
// (lenient mode) is taken as is; anything else is kept raw under
// RawArgumentsKey. An empty string is an empty object, as the API treats
// a call without parameters.
func refParseArguments(v any) map[string]any {
	switch a := v.(type) {
	case nil:
		return map[string]any{}
	case map[string]any:
		return normalizeNumbers(a).(map[string]any)
	case string:
		if strings.TrimSpace(a) == "" {
			return map[string]any{}
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(a), &obj); err == nil && obj != nil {
			return obj
		}
		return map[string]any{RawArgumentsKey: a}
	}
	b, _ := json.Marshal(v)
	return map[string]any{RawArgumentsKey: string(b)}
}
