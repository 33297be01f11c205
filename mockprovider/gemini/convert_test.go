package gemini

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// originalToConversation and originalToPart are the conversion as it was
// before it read values through jsonscan and shared one parts array.
func originalToConversation(req *Request) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.Gemini, Model: req.Model, Stream: req.Method == methodStream, ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto}}
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
			params := fd.ParametersJSONSchema
			if len(params) == 0 && len(fd.Parameters) > 0 {
				params = lowerSchemaTypes(fd.Parameters)
			}
			c.Tools = append(c.Tools, conv.Tool{Name: fd.Name, Description: fd.Description, Parameters: params})
		}
	}
	if req.ToolConfig != nil && req.ToolConfig.FunctionCallingConfig != nil {
		fc := req.ToolConfig.FunctionCallingConfig
		switch strings.ToUpper(fc.Mode) {
		case "NONE":
			c.ToolChoice.Mode = conv.ToolChoiceNone
		case "ANY":
			c.ToolChoice.Mode = conv.ToolChoiceRequired
			if len(fc.AllowedFunctionNames) == 1 {
				c.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: fc.AllowedFunctionNames[0]}
			}
		}
	}
	if len(req.Contents) > 0 {
		c.Turns = make([]conv.Turn, 0, len(req.Contents))
	}
	for _, content := range req.Contents {
		turn := conv.Turn{Role: conv.User}
		if content.Role == roleModel {
			turn.Role = conv.Assistant
		}
		for _, p := range content.Parts {
			if cp, ok := originalToPart(p); ok {
				if turn.Parts == nil {
					turn.Parts = make([]conv.Part, 0, len(content.Parts))
				}
				turn.Parts = append(turn.Parts, cp)
			}
		}
		c.Turns = append(c.Turns, turn)
	}
	return c
}

func originalToPart(p Part) (conv.Part, bool) {
	switch {
	case p.FunctionCall != nil:
		args := map[string]any{}
		_ = json.Unmarshal(p.FunctionCall.Args, &args)
		if args == nil {
			args = map[string]any{}
		}
		return conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Arguments: args, ThoughtSignature: p.ThoughtSignature}}, true
	case p.FunctionResponse != nil:
		fr := p.FunctionResponse
		res := &conv.Result{CallID: fr.ID, Name: fr.Name}
		var obj map[string]any
		if json.Unmarshal(fr.Response, &obj) == nil && obj != nil {
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

// argsReference and structuredReference are how toPart read a call's
// arguments and a function's response before jsonscan took over.
func argsReference(raw json.RawMessage) map[string]any {
	args := map[string]any{}
	_ = json.Unmarshal(raw, &args)
	if args == nil {
		args = map[string]any{}
	}
	return args
}

func structuredReference(raw json.RawMessage) (map[string]any, bool) {
	var obj map[string]any
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		return obj, true
	}
	return nil, false
}

// sameJSONValue compares decoded values exactly: deep equality and the
// same encoding (which tells -0 from 0).
func sameJSONValue(a, b any) bool {
	if !reflect.DeepEqual(a, b) {
		return false
	}
	ea, errA := json.Marshal(a)
	eb, errB := json.Marshal(b)
	return (errA == nil) == (errB == nil) && string(ea) == string(eb)
}

// FuzzToPartValues holds toPart's reading of args and response to the
// encoding/json reference, on the raw values of decoded bodies and on
// the input itself when it is valid JSON.
func FuzzToPartValues(f *testing.F) {
	fuzzBodies(f)
	for _, s := range []string{`{"a":1e400}`, `{"a":-0,"b":[1e-400]}`, `[]`, `null`, `"s"`, `{"error":{"x":1},"output":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var raws []json.RawMessage
		if json.Valid(body) {
			raws = append(raws, body, nil, json.RawMessage{})
		}
		if req, aerr := decodeBody(body); aerr == nil {
			for _, c := range req.Contents {
				for _, p := range c.Parts {
					if p.FunctionCall != nil {
						raws = append(raws, p.FunctionCall.Args)
					}
					if p.FunctionResponse != nil {
						raws = append(raws, p.FunctionResponse.Response)
					}
				}
			}
		}
		for _, raw := range raws {
			part, _ := toPart(Part{FunctionCall: &FunctionCall{Args: raw}})
			if want := argsReference(raw); !sameJSONValue(part.Call.Arguments, want) {
				t.Fatalf("args %q: got %#v, want %#v", raw, part.Call.Arguments, want)
			}
			part, _ = toPart(Part{FunctionResponse: &FunctionResponse{Response: raw}})
			want, ok := structuredReference(raw)
			if got := part.Result.Structured; (got != nil) != ok || ok && !sameJSONValue(got, want) {
				t.Fatalf("response %q: got %#v, want %#v (%v)", raw, got, want, ok)
			}
		}
	})
}

// FuzzToConversation compares the conversation of every decoded body with
// the original conversion's.
func FuzzToConversation(f *testing.F) {
	fuzzBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		req, aerr := decodeBody(body)
		if aerr != nil {
			return
		}
		req.Model, req.Method = "gemini-2.5-flash", methodStream
		got, want := toConversation(req), originalToConversation(req)
		if !sameJSONValue(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", body, got, want)
		}
	})
}
