// Package refdriver is the reference driver's Gemini loop on the
// official SDK (google.golang.org/genai) and the table of its mistakes.
// It links the SDK, so the mock (package gemini) does not import it.
package refdriver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/model"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// Dialect is the reference driver of Gemini.
func Dialect() core.Dialect {
	return core.Dialect{Name: conv.Gemini, Mistakes: core.Table(mistakes), Run: run}
}

func lookup(brk core.Break) *mistake { return core.Find(mistakes, brk) }

func run(ctx context.Context, brk core.Break, env core.Env, t *task.Task) (string, error) {
	m := lookup(brk)
	baseURL, key, err := env.Endpoint(gemini.EnvBaseURL, gemini.EnvKey, gemini.EnvGoogleKey)
	if err != nil {
		return "", err
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      key,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  core.HTTPClient(env, m.Body),
		HTTPOptions: genai.HTTPOptions{BaseURL: baseURL},
	})
	if err != nil {
		return "", err
	}
	var decls []*genai.FunctionDeclaration
	for _, tool := range t.Tools {
		decls = append(decls, &genai.FunctionDeclaration{Name: tool.Name, Description: tool.Description, ParametersJsonSchema: tool.Parameters})
	}
	config := &genai.GenerateContentConfig{}
	if len(decls) > 0 {
		config.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	if t.System != "" {
		config.SystemInstruction = genai.NewContentFromText(t.System, genai.RoleUser)
	}
	if out := m.Output(t); out != nil {
		// JSON that keeps to the schema, given as JSON Schema rather than
		// in the OpenAPI subset of responseSchema
		// (https://ai.google.dev/gemini-api/docs/structured-output).
		config.ResponseMIMEType = "application/json"
		config.ResponseJsonSchema = out.Schema
	}
	var forced *genai.ToolConfig
	switch t.ToolChoice {
	case "", "auto":
	case "required":
		forced = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}}
	case "none":
		forced = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}}
	default:
		forced = &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{t.ToolChoice}}}
	}
	limit := m.StartLimit(t)
	contents := []*genai.Content{genai.NewContentFromText(t.Prompt, genai.RoleUser)}
	if m.start != nil {
		contents = m.start(t, config)
	}
	modelName := t.Model
	if m.model != nil {
		modelName = m.model(t.Model)
	}
	multimodal := model.IsGemini3(t.Model)
	if m.multimodal != nil {
		multimodal = m.multimodal(t.Model)
	}

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		config.ToolConfig = nil
		if m.Forcing(answered) {
			config.ToolConfig = forced
		}
		if limit > 0 {
			config.MaxOutputTokens = int32(limit)
		}
		content, finish, err := geminiTurn(ctx, client, modelName, contents, config, t.Stream)
		if err != nil {
			return "", err
		}
		// A cut call is left out of the answer: a cut turn with nothing
		// in it is asked again.
		if retry, err := m.RetryCut(finish == genai.FinishReasonMaxTokens && isEmpty(content), &limit); err != nil {
			return "", err
		} else if retry {
			turn--
			continue
		}
		var answers []core.Answer
		text := ""
		for _, p := range content.Parts {
			if p.FunctionCall != nil {
				res, err := m.Answer(t, core.Call{Name: p.FunctionCall.Name, Args: p.FunctionCall.Args})
				if err != nil {
					return "", err
				}
				answers = append(answers, core.Answer{ID: p.FunctionCall.ID, Name: p.FunctionCall.Name, Result: res})
			} else if p.Text != "" && !p.Thought {
				text += p.Text
			}
		}
		if len(answers) == 0 {
			return text, nil
		}
		var responses []*genai.Part
		for _, a := range m.Answers(answers) {
			fr := m.functionResponse(a.Result, multimodal)
			fr.ID, fr.Name = a.ID, a.Name
			if m.response != nil {
				m.response(fr)
			}
			responses = append(responses, &genai.Part{FunctionResponse: fr})
		}
		reply, sent := m.sendBack(content, responses)
		contents = append(contents, reply...)
		answered = answered || sent
	}
	return "", core.ErrTooManyTurns(t.MaxTurns)
}

// sendBack is what follows a model content with calls: the whole content
// as received, its thought signatures included
// (https://ai.google.dev/gemini-api/docs/function-calling), then one user
// content of the function responses, in the order of the calls: Gemini
// matches results by position and name; sent reports whether the
// results went back as results.
func (m *mistake) sendBack(callTurn *genai.Content, responses []*genai.Part) (reply []*genai.Content, sent bool) {
	if m.reply != nil {
		return m.reply(m, callTurn, responses)
	}
	return honestReply(callTurn, responses), true
}

func honestReply(callTurn *genai.Content, responses []*genai.Part) []*genai.Content {
	reply := []*genai.Content{callTurn}
	if len(responses) > 0 {
		reply = append(reply, &genai.Content{Role: genai.RoleUser, Parts: responses})
	}
	return reply
}

// isEmpty reports a model content with no call and no visible text.
func isEmpty(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionCall != nil || p.Text != "" && !p.Thought {
			return false
		}
	}
	return true
}

// geminiTurn sends one request and returns the model content and the
// candidate's finishReason; a stream's parts are gathered in order into
// one content.
func geminiTurn(ctx context.Context, client *genai.Client, modelName string, contents []*genai.Content, config *genai.GenerateContentConfig, stream bool) (*genai.Content, genai.FinishReason, error) {
	if !stream {
		resp, err := client.Models.GenerateContent(ctx, modelName, contents, config)
		if err != nil {
			return nil, "", err
		}
		if len(resp.Candidates) == 0 {
			return nil, "", errors.New("response has no candidate")
		}
		cand := resp.Candidates[0]
		c := cand.Content
		if c == nil {
			if cand.FinishReason != genai.FinishReasonMaxTokens {
				return nil, "", errors.New("response has no candidate content")
			}
			c = &genai.Content{}
		}
		if c.Role == "" {
			c.Role = genai.RoleModel
		}
		return c, cand.FinishReason, nil
	}
	out := &genai.Content{Role: genai.RoleModel}
	got := false
	var finish genai.FinishReason
	for resp, err := range client.Models.GenerateContentStream(ctx, modelName, contents, config) {
		if err != nil {
			return nil, "", err
		}
		if len(resp.Candidates) == 0 {
			continue
		}
		if f := resp.Candidates[0].FinishReason; f != "" {
			finish = f
		}
		if resp.Candidates[0].Content == nil {
			continue
		}
		got = true
		out.Parts = append(out.Parts, resp.Candidates[0].Content.Parts...)
	}
	if !got && finish != genai.FinishReasonMaxTokens {
		return nil, "", errors.New("stream ended without candidate content")
	}
	return out, finish, nil
}

// geminiDocumentMIME are the document types Gemini 3 takes in function
// responses (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
var geminiDocumentMIME = map[string]bool{"application/pdf": true, "text/plain": true}

// refersTo reports whether v holds {"$ref": name} anywhere.
func refersTo(v any, name string) bool {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok && ref == name {
			return true
		}
		for _, y := range x {
			if refersTo(y, name) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if refersTo(y, name) {
				return true
			}
		}
	}
	return false
}

// geminiMediaPart is one multimodal part of a function response: inline
// bytes with the displayName the response references (https://ai.google.dev/gemini-api/docs/function-calling#multimodal
// `displayName` and `$ref` system).
func (m *mistake) mediaPart(md task.Media, data []byte, name string) *genai.FunctionResponsePart {
	if m.mediaPartHook != nil {
		return m.mediaPartHook(md, data, name)
	}
	return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: md.MimeType, Data: data, DisplayName: name}}
}

// functionResponse converts a CallToolResult to a functionResponse: response
// is always an object — structuredContent as is, text as {"output": …},
// errors as {"error": …} (go-genai FunctionResponse.Response doc); media
// become inlineData parts with a displayName referenced by {"$ref": …}
// on Gemini 3 (https://ai.google.dev/gemini-api/docs/function-calling#multimodal) and a text
// note on older models, which reject multimodal function responses.
func (m *mistake) functionResponse(r task.CallToolResult, multimodal bool) *genai.FunctionResponse {
	fr := &genai.FunctionResponse{}
	var media []task.Media
	text := r.Text()
	if multimodal {
		// Text documents (text/plain resources) travel as parts too, as
		// Gemini takes them (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
		media = r.Media()
		var texts []string
		for _, c := range r.Content {
			switch {
			case c.Type == "text":
				texts = append(texts, c.Text)
			case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "" && geminiDocumentMIME[c.Resource.MimeType]:
				media = append(media, task.Media{MimeType: c.Resource.MimeType, URI: c.Resource.URI, Data: base64.StdEncoding.EncodeToString([]byte(c.Resource.Text))})
			case c.Type == "resource" && c.Resource != nil && c.Resource.Text != "":
				texts = append(texts, c.Resource.Text)
			}
		}
		text = strings.Join(texts, "\n")
	} else {
		text = m.PlainText(task.CallToolResult{Content: r.Content})
	}
	switch {
	case r.IsError && !m.UnmarkedErrors:
		if text == "" && r.StructuredContent != nil {
			text = string(core.MustJSON(r.StructuredContent))
		}
		fr.Response = map[string]any{"error": text}
	case r.StructuredContent != nil && m.structured != nil:
		fr.Response = m.structured(r.StructuredContent)
	case r.StructuredContent != nil:
		fr.Response = map[string]any{}
		for k, v := range r.StructuredContent {
			fr.Response[k] = v
		}
	default:
		fr.Response = map[string]any{"output": text}
	}
	for i, md := range media {
		data, err := base64.StdEncoding.DecodeString(md.Data)
		if err != nil {
			continue
		}
		name := core.MediaName(md, i)
		if m.displayName != nil {
			name = m.displayName(name)
		}
		fr.Parts = append(fr.Parts, m.mediaPart(md, data, name))
		// Structured content may already reference the part; each
		// displayName is referenced once.
		if !refersTo(fr.Response, name) {
			fr.Response[fmt.Sprintf("attachment_%d", i+1)] = map[string]any{"$ref": name}
		}
		if m.referenced != nil {
			m.referenced(fr.Response, name, i)
		}
	}
	return fr
}
