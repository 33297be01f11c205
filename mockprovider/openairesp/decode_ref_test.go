package openairesp

// The decoder's assembly as it was before the input array was copied once
// and the conversation built in one pass (request.go): the reference
// FuzzDecodeEquivalence holds Decode to. The fast field decoders keep
// json.Unmarshal as their reference (FuzzFastDecode).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// refDecode is Decode as it was: it parses the body, resolves previous_response_id from the session
// and builds the neutral conversation.
func refDecode(x *dialect.Exchange, body []byte) (any, *conv.Conversation, *wire.APIError) {
	var req Request
	if !fastRequest(body, &req) {
		if aerr := decodeObject(body, &req, ""); aerr != nil {
			return nil, nil, aerr
		}
	}
	for i, raw := range req.ToolsRaw {
		var t Tool
		if fastTool(raw, &t) {
			req.Tools = append(req.Tools, t)
			continue
		}
		if aerr := decodeObject(raw, &t, "tools["+strconv.Itoa(i)+"]"); aerr != nil {
			return nil, nil, aerr
		}
		req.Tools = append(req.Tools, t)
	}
	if aerr := refDecodeInput(&req); aerr != nil {
		return nil, nil, aerr
	}
	if req.PreviousResponseID != nil && *req.PreviousResponseID != "" && x != nil && x.Session != nil {
		stored, ok := x.Session.Response(*req.PreviousResponseID)
		if !ok || stored.Body == nil {
			req.PreviousMissing = true
		} else {
			for _, raw := range stored.Items {
				var it Item
				if json.Unmarshal(raw, &it) == nil {
					it.Raw, it.Index = raw, -1
					req.Prior = append(req.Prior, it)
				}
			}
		}
	}
	refResolveReferences(&req)
	return &req, refConversation(&req), nil
}

// refDecodeInput reads input: a string (one user message) or an array of
// items. Anything else is answered at once, as the API's schema
// validation does.
func refDecodeInput(r *Request) *wire.APIError {
	switch kindOfRaw(r.Input) {
	case "", "null":
		return nil // missing input: reported by the required-fields rule
	case "string":
		var s string
		_ = json.Unmarshal(r.Input, &s)
		raw, _ := json.Marshal(map[string]any{"role": "user", "content": s})
		r.Items = []Item{{Role: "user", Content: mustJSON(s), Raw: raw, Index: 0}}
		r.InputString = true
		return nil
	case "array":
		// Input came out of the decoded (so valid) body: it is split
		// without being validated again.
		raws, ok := jsonscan.ParseArray(r.Input)
		if !ok {
			return openaiwire.InvalidJSON()
		}
		for i, span := range raws {
			raw := jsonscan.Clone(span) // kept by stored responses: its own copy
			at := "input[" + strconv.Itoa(i) + "]"
			if kindOfRaw(raw) != "object" {
				return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: at, Code: "invalid_type",
					Message: fmt.Sprintf("Invalid type for '%s': expected an object, but got %s instead.", at, jsonKind(kindOfValue(string(raw))))}
			}
			var it Item
			if !fastItem(raw, &it) {
				if aerr := decodeObject(raw, &it, at); aerr != nil {
					return aerr
				}
			}
			it.Raw, it.Index = raw, i
			r.Items = append(r.Items, it)
		}
		return nil
	}
	return &wire.APIError{Status: http.StatusBadRequest, Type: openaiwire.InvalidRequest, Param: "input", Code: "invalid_type",
		Message: fmt.Sprintf("Invalid type for 'input': expected one of a string or array of input items, but got %s instead.", jsonKind(kindOfValue(string(r.Input))))}
}

// refResolveReferences replaces item_reference items whose id names an
// earlier item of the effective conversation by that item; unresolvable
// references are left in place and ignored by the conversation.
func refResolveReferences(r *Request) {
	byID := map[string]Item{}
	for _, it := range r.Prior {
		if it.ID != "" {
			byID[it.ID] = it
		}
	}
	for i, it := range r.Items {
		if it.Type == "item_reference" {
			if ref, ok := byID[it.ID]; ok {
				ref.Index = it.Index
				r.Items[i] = ref
			}
			continue
		}
		if it.ID != "" {
			byID[it.ID] = it
		}
	}
}

// refConversation builds the neutral form: adjacent assistant-side items
// (reasoning, calls, assistant messages) make one assistant turn, adjacent
// user-side items (user messages, call outputs) one user turn, since the
// model's scenario cursor counts assistant turns.
func refConversation(r *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.OpenAIResponses, Model: r.Model, Stream: r.Stream, ToolChoice: refToolChoice(r)}
	if r.PreviousResponseID != nil {
		c.PreviousResponseID = *r.PreviousResponseID
	}
	if instr, ok := jsonscan.ToString(r.Instructions); ok {
		c.System = instr
	}
	for _, t := range r.Tools {
		if t.Type != "function" || t.Name == nil {
			continue
		}
		c.Tools = append(c.Tools, conv.Tool{Name: *t.Name, Description: str(t.Description), Parameters: t.Parameters, Strict: t.Strict != nil && *t.Strict})
	}
	names := map[string]string{} // call_id → function name, for results
	add := func(role conv.Role, p conv.Part) {
		if last := c.LastTurn(); last != nil && last.Role == role {
			last.Parts = append(last.Parts, p)
			return
		}
		c.Turns = append(c.Turns, conv.Turn{Role: role, Parts: []conv.Part{p}})
	}
	for _, it := range r.Effective() {
		switch it.Kind() {
		case "message":
			switch it.Role {
			case "system", "developer":
				if s := refTextOf(it.Content); s != "" {
					c.System = joinNonEmpty(c.System, s)
				}
			case "assistant":
				for _, p := range refContentParts(it.Content) {
					add(conv.Assistant, p)
				}
			default:
				for _, p := range refContentParts(it.Content) {
					add(conv.User, p)
				}
			}
		case "reasoning":
			add(conv.Assistant, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{ID: it.ID, EncryptedContent: str(it.EncryptedContent), Summary: summaryText(it.Summary)}})
		case "function_call":
			args := jsonscan.String(it.Arguments)
			m := map[string]any{}
			_ = json.Unmarshal([]byte(args), &m)
			if m == nil {
				m = map[string]any{}
			}
			names[str(it.CallID)] = str(it.Name)
			add(conv.Assistant, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: str(it.CallID), Name: str(it.Name), Arguments: m, ItemID: it.ID}})
		case "function_call_output":
			id := str(it.CallID)
			add(conv.User, conv.Part{Kind: conv.KindResult, Result: &conv.Result{CallID: id, Name: names[id], Content: refOutputContent(it.Output)}})
		}
	}
	return c
}

func refToolChoice(r *Request) conv.ToolChoice {
	if s, ok := jsonscan.ToString(r.ToolChoice); ok {
		switch s {
		case "none":
			return conv.ToolChoice{Mode: conv.ToolChoiceNone}
		case "required":
			return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		}
		return conv.ToolChoice{Mode: conv.ToolChoiceAuto}
	}
	var o struct {
		Type string `json:"type"`
		Name string `json:"name"`
		Mode string `json:"mode"`
	}
	if json.Unmarshal(r.ToolChoice, &o) == nil {
		switch {
		case o.Type == "function" && o.Name != "":
			return conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: o.Name}
		case o.Type == "allowed_tools" && o.Mode == "required":
			return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		}
	}
	return conv.ToolChoice{Mode: conv.ToolChoiceAuto}
}

func refContentParts(raw json.RawMessage) []conv.Part {
	parts, s, isString := refParseParts(raw)
	if isString {
		return []conv.Part{{Kind: conv.KindText, Text: s}}
	}
	var out []conv.Part
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, conv.Part{Kind: conv.KindText, Text: p.Text})
		case "refusal":
			out = append(out, conv.Part{Kind: conv.KindRefusal, Text: p.Refusal})
		case "input_image", "input_file", "image_url":
			ct := refMediaContent(p)
			out = append(out, conv.Part{Kind: conv.KindMedia, Media: &ct})
		}
	}
	return out
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func refParseParts(raw json.RawMessage) ([]contentPart, string, bool) {
	if s, ok := jsonscan.ToString(raw); ok {
		return nil, s, true
	}
	var parts []contentPart
	_ = json.Unmarshal(raw, &parts)
	return parts, "", false
}

func refTextOf(raw json.RawMessage) string {
	parts, s, isString := refParseParts(raw)
	if isString {
		return s
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// refOutputContent reads a function_call_output's output: a string, or an
// array of input_text / input_image / input_file items.
func refOutputContent(raw json.RawMessage) []conv.Content {
	parts, s, isString := refParseParts(raw)
	if isString {
		return []conv.Content{{Type: conv.ContentText, Text: s}}
	}
	var out []conv.Content
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text":
			out = append(out, conv.Content{Type: conv.ContentText, Text: p.Text})
		case "input_image", "input_file", "image_url":
			out = append(out, refMediaContent(p))
		}
	}
	return out
}

func refMediaContent(p contentPart) conv.Content {
	if p.Type == "input_file" {
		ct := conv.Content{Type: conv.ContentDocument, URL: p.FileURL, DisplayName: p.Filename}
		if p.FileData != "" {
			ct.MIMEType, ct.Data = splitDataURL(p.FileData)
		}
		if ct.URL == "" && p.FileID != "" {
			ct.URL = "file:" + p.FileID
		}
		return ct
	}
	url, ok := jsonscan.ToString(p.ImageURL)
	if !ok {
		var o struct {
			URL string `json:"url"`
		}
		_ = json.Unmarshal(p.ImageURL, &o)
		url = o.URL
	}
	ct := conv.Content{Type: conv.ContentImage}
	switch {
	case strings.HasPrefix(url, "data:"):
		ct.MIMEType, ct.Data = splitDataURL(url)
	case url != "":
		ct.URL = url
	case p.FileID != "":
		ct.URL = "file:" + p.FileID
	}
	return ct
}
