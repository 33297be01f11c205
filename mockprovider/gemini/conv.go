package gemini

import (
	"encoding/json"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// toConversation maps the request onto the neutral model.
func toConversation(req *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.Gemini, Model: req.Model, Stream: req.Method == methodStream, ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto}}
	if g := req.GenerationConfig; g != nil {
		if g.MaxOutputTokens != nil {
			c.Controls.MaxOutputTokens = max(int64(*g.MaxOutputTokens), 0)
		}
		c.Controls.StopSequences = g.StopSequences
		c.Controls.Output = g.output()
		if g.CandidateCount != nil && *g.CandidateCount > 1 {
			c.Controls.Candidates = int(*g.CandidateCount)
		}
	}
	if req.SystemInstruction != nil {
		var texts []string
		for _, p := range req.SystemInstruction.Parts {
			if p.Text != nil {
				texts = append(texts, *p.Text)
			}
		}
		c.System = strings.Join(texts, "\n")
	}
	for _, t := range req.Tools {
		for _, fd := range t.FunctionDeclarations {
			params := json.RawMessage(fd.ParametersJSONSchema)
			if len(params) == 0 && fd.Parameters != nil {
				params, _ = json.Marshal(fd.Parameters.jsonSchema())
			}
			c.Tools = append(c.Tools, conv.Tool{Name: fd.Name, Description: fd.Description, Parameters: params})
		}
	}
	if req.ToolConfig != nil && req.ToolConfig.FunctionCallingConfig != nil {
		fc := req.ToolConfig.FunctionCallingConfig
		switch fc.Mode {
		case "NONE":
			c.ToolChoice.Mode = conv.ToolChoiceNone
		case "ANY":
			c.ToolChoice.Mode = conv.ToolChoiceRequired
			if len(fc.AllowedFunctionNames) == 1 {
				c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: fc.AllowedFunctionNames[0]}
			}
			c.Controls.AllowedTools = fc.AllowedFunctionNames
		case "VALIDATED":
			// Calls or text, the calls limited to the allowed names
			// (genai types.go, FunctionCallingConfigModeValidated).
			c.Controls.AllowedTools = fc.AllowedFunctionNames
		}
	}
	if len(req.turns) == len(req.Contents) {
		c.Turns = req.turns
	} else {
		for i := range req.Contents {
			c.Turns = append(c.Turns, toTurn(&req.Contents[i]))
		}
	}
	return c
}

// toTurn is content c as the conversation reads it.
func toTurn(c *Content) conv.Turn {
	turn := conv.Turn{Role: conv.User}
	if c.Role == roleModel {
		turn.Role = conv.Assistant
	}
	if len(c.Parts) > 1 {
		// Sized once: appending grew a many-parts turn through copies.
		turn.Parts = make([]conv.Part, 0, len(c.Parts))
	}
	for j := range c.Parts {
		if cp, ok := toPart(&c.Parts[j]); ok {
			turn.Parts = append(turn.Parts, cp)
		}
	}
	return turn
}

// Response MIME types that constrain the answer's text
// (https://ai.google.dev/gemini-api/docs/structured-output).
const (
	mimeJSON = "application/json"
	mimeEnum = "text/x.enum"
)

// output is the structured-output demand of responseMimeType and its
// schema. application/json without a schema asks for any JSON value (the
// API does not insist on an object), so it is a demand with no schema:
// any scripted value passes and the built value is an object, what the
// model gives when nothing shapes it. text/x.enum answers one of the
// schema's enum values as plain text: the model builds it as a JSON
// string and the encoder sends it unquoted.
func (g *GenerationConfig) output() *conv.Output {
	mime := strings.ToLower(strings.TrimSpace(g.ResponseMIMEType))
	if mime != mimeJSON && mime != mimeEnum {
		return nil
	}
	out := &conv.Output{Kind: conv.OutputJSONSchema}
	switch {
	case len(g.ResponseJSONSchema) > 0 && string(g.ResponseJSONSchema) != "null":
		out.Schema = json.RawMessage(g.ResponseJSONSchema)
	case g.ResponseSchema != nil:
		out.Schema, _ = json.Marshal(g.ResponseSchema.jsonSchema())
	}
	if mime == mimeEnum && len(out.Schema) == 0 {
		return nil // no enum to choose from: a rule reports it
	}
	return out
}

// structValue reads a google.protobuf.Struct field (args, response); nil
// when it is absent or not an object (a rule reports that).
func structValue(raw []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// signature is the part's thought signature as sent ("" when absent).
func (p Part) signature() string {
	if p.ThoughtSignature == nil {
		return ""
	}
	return p.ThoughtSignature.Text
}

func toPart(p *Part) (conv.Part, bool) {
	switch {
	case p.FunctionCall != nil:
		args := structValue(p.FunctionCall.Args)
		if args == nil {
			args = map[string]any{}
		}
		return conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: args, ThoughtSignature: p.signature()}}, true
	case p.FunctionResponse != nil:
		fr := p.FunctionResponse
		res := &conv.Result{CallID: fr.ID, Name: fr.Name}
		if obj := structValue(fr.Response); obj != nil {
			res.Structured = obj
			// Google's convention: an "error" key (and no "output") reports
			// a failed call.
			_, hasErr := obj["error"]
			_, hasOut := obj["output"]
			res.IsError = hasErr && !hasOut
		}
		for _, mp := range fr.Parts {
			switch {
			case mp.InlineData != nil:
				res.Content = append(res.Content, media(mp.InlineData.MIMEType, mp.InlineData.Data, "", mp.InlineData.DisplayName))
			case mp.FileData != nil:
				res.Content = append(res.Content, media(mp.FileData.MIMEType, "", mp.FileData.FileURI, mp.FileData.DisplayName))
			}
		}
		return conv.Part{Kind: conv.KindResult, Result: res}, true
	case p.InlineData != nil:
		m := media(p.InlineData.MIMEType, p.InlineData.Data, "", p.InlineData.DisplayName)
		return conv.Part{Kind: conv.KindMedia, Media: &m}, true
	case p.FileData != nil:
		m := media(p.FileData.MIMEType, "", p.FileData.FileURI, p.FileData.DisplayName)
		return conv.Part{Kind: conv.KindMedia, Media: &m}, true
	case p.Text != nil && p.Thought:
		return conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: *p.Text}}, true
	case p.Text != nil:
		return conv.Part{Kind: conv.KindText, Text: *p.Text}, true
	}
	return conv.Part{}, false
}

func media(mime, data, url, name string) conv.Content {
	t := conv.ContentDocument
	if strings.HasPrefix(mime, "image/") {
		t = conv.ContentImage
	}
	return conv.Content{Type: t, MIMEType: mime, Data: data, URL: url, DisplayName: name}
}

// jsonSchema renders the OpenAPI-subset schema as the JSON Schema the
// model's argument synthesis reads (lower-case types).
func (s *Schema) jsonSchema() map[string]any {
	if s == nil {
		return nil
	}
	out := map[string]any{}
	if s.Type != "" && s.Type != "TYPE_UNSPECIFIED" {
		out["type"] = strings.ToLower(string(s.Type))
		if s.Nullable != nil && *s.Nullable && s.Type != "NULL" {
			out["type"] = []string{strings.ToLower(string(s.Type)), "null"}
		}
	}
	set := func(k string, v any, present bool) {
		if present {
			out[k] = v
		}
	}
	set("format", s.Format, s.Format != "")
	set("title", s.Title, s.Title != "")
	set("description", s.Description, s.Description != "")
	set("enum", s.Enum, s.Enum != nil)
	set("required", s.Required, s.Required != nil)
	set("pattern", s.Pattern, s.Pattern != "")
	set("minItems", s.MinItems, s.MinItems != nil)
	set("maxItems", s.MaxItems, s.MaxItems != nil)
	set("minLength", s.MinLength, s.MinLength != nil)
	set("maxLength", s.MaxLength, s.MaxLength != nil)
	set("minProperties", s.MinProperties, s.MinProperties != nil)
	set("maxProperties", s.MaxProperties, s.MaxProperties != nil)
	// propertyOrdering is not JSON Schema, which ignores it; kept so the
	// encoder can lay the answer's keys out in that order.
	set("propertyOrdering", s.PropertyOrdering, s.PropertyOrdering != nil)
	set("minimum", s.Minimum, s.Minimum != nil)
	set("maximum", s.Maximum, s.Maximum != nil)
	set("default", json.RawMessage(s.Default), len(s.Default) > 0)
	set("example", json.RawMessage(s.Example), len(s.Example) > 0)
	if s.Items != nil {
		out["items"] = s.Items.jsonSchema()
	}
	if s.Properties != nil {
		props := make(map[string]any, len(s.Properties))
		for k, v := range s.Properties {
			props[k] = v.jsonSchema()
		}
		out["properties"] = props
	}
	if s.AnyOf != nil {
		var anyOf []any
		for _, v := range s.AnyOf {
			anyOf = append(anyOf, v.jsonSchema())
		}
		out["anyOf"] = anyOf
	}
	return out
}
