package bedrock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Rule IDs of the decoding errors.
const (
	RuleKnownFields = "bedrock.known-fields"
	RuleFieldTypes  = "bedrock.field-types"
	RuleValidJSON   = "bedrock.valid-json"
)

// Decode reads the path's model and the body.
func (d *Dialect) Decode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	req, aerr := decodeInSession(x.Session, body)
	if aerr != nil {
		return nil, nil, aerr
	}
	req.Model = x.R.PathValue("modelId")
	req.Stream = strings.HasSuffix(x.R.URL.Path, "/converse-stream")
	return req, toConversation(req), nil
}

// decodeLenient reads the body into a Request. Members the request does not
// define are skipped and kept for known-fields to journal (no capture shows
// Converse refusing one). The wording of decoding errors is inferred:
// Bedrock's REST-JSON front end answers a ValidationException, and no
// capture shows its text for each kind.
func decodeLenient(body []byte) (*Request, *wire.APIError) {
	req := &Request{BodyLen: len(body)}
	if len(bytes.TrimSpace(body)) == 0 {
		return req, nil
	}
	unknown, err := wirejson.Decode(body, req, wirejson.Options{Lenient: true})
	if err != nil {
		return nil, decodeError(err)
	}
	req.Unknown = unknown
	return req, nil
}

// decodeStrict decodes a body that has no unknown member (ok false: it has
// one, or does not decode): decodeLenient's result without its second,
// strict pass that lists unknown members.
func decodeStrict(doc []byte) (*Request, bool) {
	req := new(Request)
	if _, err := wirejson.Decode(doc, req, wirejson.Options{}); err != nil {
		return nil, false
	}
	return req, true
}

func decodeError(e *wirejson.Error) *wire.APIError {
	bad := func(rule, msg string) *wire.APIError {
		return &wire.APIError{Status: http.StatusBadRequest, Type: errValidation, RuleID: rule, Message: msg}
	}
	switch e.Kind {
	case wirejson.Syntax, wirejson.InvalidUTF8:
		return &wire.APIError{Status: http.StatusBadRequest, Type: "SerializationException", RuleID: RuleValidJSON,
			Message: "Could not parse request body into json"}
	}
	return bad(RuleFieldTypes, fmt.Sprintf("The value at %s is invalid. Provide a valid value for the field and try again.", wirejson.Dotted(e.Path)))
}

// toConversation maps the request onto the neutral model.
func toConversation(r *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.Bedrock, Model: r.Model, Stream: r.Stream, ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto}}
	if ic := r.InferenceConfig; ic != nil {
		if ic.MaxTokens != nil {
			c.Controls.MaxOutputTokens = max(int64(*ic.MaxTokens), 0)
		}
		c.Controls.StopSequences = ic.StopSequences
	}
	c.Controls.Output = outputDemand(r)
	var sys []string
	for _, b := range r.System {
		if b.Text != nil {
			sys = append(sys, *b.Text)
		}
	}
	c.System = strings.Join(sys, "\n")
	if tc := r.ToolConfig; tc != nil {
		for _, t := range tc.Tools {
			if t.ToolSpec == nil {
				continue
			}
			tool := conv.Tool{Name: t.ToolSpec.Name}
			if t.ToolSpec.Description != nil {
				tool.Description = *t.ToolSpec.Description
			}
			if t.ToolSpec.InputSchema != nil {
				tool.Parameters = json.RawMessage(t.ToolSpec.InputSchema.JSON)
			}
			tool.Strict = t.ToolSpec.Strict != nil && *t.ToolSpec.Strict
			c.Tools = append(c.Tools, tool)
		}
		if ch := tc.ToolChoice; ch != nil {
			switch {
			case ch.Tool != nil:
				c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: ch.Tool.Name}
			case ch.Any != nil:
				c.ToolChoice.Mode = conv.ToolChoiceRequired
			}
		}
	}
	if len(r.kept) == len(r.Messages) && len(r.kept) > 0 {
		c.Turns = make([]conv.Turn, 0, len(r.kept))
		for _, k := range r.kept {
			c.Turns = append(c.Turns, k.turn)
		}
		return c
	}
	for _, m := range r.Messages {
		c.Turns = append(c.Turns, toTurn(m))
	}
	return c
}

func toTurn(m Message) conv.Turn {
	turn := conv.Turn{Role: conv.User}
	if m.Role == roleAssistant {
		turn.Role = conv.Assistant
	}
	for _, b := range m.Content {
		if p, ok := toPart(b); ok {
			turn.Parts = append(turn.Parts, p)
		}
	}
	return turn
}

const (
	roleUser      = "user"
	roleAssistant = "assistant"
)

func toPart(b Block) (conv.Part, bool) {
	switch {
	case b.Text != nil:
		return conv.Part{Kind: conv.KindText, Text: *b.Text}, true
	case b.ToolUse != nil:
		var args map[string]any
		_ = json.Unmarshal(b.ToolUse.Input, &args)
		if args == nil {
			args = map[string]any{}
		}
		return conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: b.ToolUse.ToolUseID, Name: b.ToolUse.Name, Arguments: args}}, true
	case b.ToolResult != nil:
		tr := b.ToolResult
		res := &conv.Result{CallID: tr.ToolUseID, IsError: tr.Status == "error"}
		for _, rb := range tr.Content {
			switch {
			case rb.Text != nil:
				res.Content = append(res.Content, conv.Content{Type: conv.ContentText, Text: *rb.Text})
			case rb.JSON != nil:
				var obj map[string]any
				if json.Unmarshal(rb.JSON, &obj) == nil && res.Structured == nil {
					res.Structured = obj
				}
				res.Content = append(res.Content, conv.Content{Type: conv.ContentText, Text: string(rb.JSON)})
			case rb.Image != nil:
				res.Content = append(res.Content, imageContent(rb.Image))
			case rb.Document != nil:
				res.Content = append(res.Content, documentContent(rb.Document))
			}
		}
		return conv.Part{Kind: conv.KindResult, Result: res}, true
	case b.Image != nil:
		m := imageContent(b.Image)
		return conv.Part{Kind: conv.KindMedia, Media: &m}, true
	case b.Document != nil:
		m := documentContent(b.Document)
		return conv.Part{Kind: conv.KindMedia, Media: &m}, true
	case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
		rt := b.ReasoningContent.ReasoningText
		return conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: rt.Text}}, true
	}
	return conv.Part{}, false
}

func imageContent(im *ImageBlock) conv.Content {
	c := conv.Content{Type: conv.ContentImage, MIMEType: "image/" + im.Format}
	if im.Source != nil {
		c.Data = im.Source.Bytes
	}
	return c
}

func documentContent(doc *DocumentBlock) conv.Content {
	c := conv.Content{Type: conv.ContentDocument, DisplayName: doc.Name, MIMEType: doc.Format}
	if doc.Source != nil {
		c.Data = doc.Source.Bytes
		if doc.Source.Text != nil {
			c.Text = *doc.Source.Text
		}
	}
	return c
}
