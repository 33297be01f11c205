package refdriver

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"strings"

	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/suite/task"
)

func (d *Driver) runGemini(ctx context.Context, env Env, t *task.Task) (string, error) {
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      env.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  httpClient(env, d.editFor(conv.Gemini)),
		HTTPOptions: genai.HTTPOptions{BaseURL: env.GeminiBaseURL},
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
	limit := d.startLimit(t)
	contents := []*genai.Content{genai.NewContentFromText(t.Prompt, genai.RoleUser)}
	if d.Break == PromptAsSystemInstruction {
		config.SystemInstruction = genai.NewContentFromText(strings.TrimSpace(t.System+"\n"+t.Prompt), genai.RoleUser)
		contents = nil
	}
	multimodal := model.IsGemini3(t.Model) || d.Break == Gemini2Multimodal

	answered := false
	for turn := 0; turn < t.MaxTurns; turn++ {
		config.ToolConfig = nil
		if d.forcing(answered) {
			config.ToolConfig = forced
		}
		if limit > 0 {
			config.MaxOutputTokens = int32(limit)
		}
		content, finish, err := geminiTurn(ctx, client, d.geminiModel(t.Model), contents, config, t.Stream)
		if err != nil {
			return "", err
		}
		// A cut call is left out of the answer: a cut turn with nothing
		// in it is asked again.
		if retry, err := d.retryCut(finish == genai.FinishReasonMaxTokens && isEmpty(content), &limit); err != nil {
			return "", err
		} else if retry {
			turn--
			continue
		}
		var calls []*genai.FunctionCall
		text := ""
		for _, p := range content.Parts {
			if p.FunctionCall != nil {
				calls = append(calls, p.FunctionCall)
			} else if p.Text != "" && !p.Thought {
				text += p.Text
			}
		}
		if len(calls) == 0 {
			return text, nil
		}
		// The whole model content goes back as received: its thought
		// signatures included (https://ai.google.dev/gemini-api/docs/function-calling).
		if d.Break == StripSignature {
			content = stripSignatures(content)
		}
		if d.Break != ResultsAsUserText {
			contents = append(contents, content)
		}

		var responses []*genai.Part
		for _, fc := range calls {
			res, err := d.answer(t, fc.Name, fc.Args, false)
			if err != nil {
				return "", err
			}
			fr := d.geminiResponse(res, multimodal)
			fr.ID, fr.Name = fc.ID, fc.Name
			if d.Break == ResponseIDNotEchoed {
				fr.ID = ""
			}
			responses = append(responses, &genai.Part{FunctionResponse: fr})
		}
		if d.Break == SwappedIDs && len(responses) >= 2 {
			a, b := responses[0].FunctionResponse, responses[1].FunctionResponse
			a.ID, b.ID = b.ID, a.ID
		}
		if d.Break == UnansweredCall {
			responses = responses[:len(responses)-1]
		}
		// Gemini matches results by position and name: same order as
		// the calls (https://ai.google.dev/gemini-api/docs/function-calling).
		if d.Break == ReorderSameName {
			for i, j := 0, len(responses)-1; i < j; i, j = i+1, j-1 {
				responses[i], responses[j] = responses[j], responses[i]
			}
		}
		switch d.Break {
		case ResultsAsUserText:
			var names, texts []string
			for _, p := range responses {
				names = append(names, p.FunctionResponse.Name)
				texts = append(texts, string(mustJSON(p.FunctionResponse.Response)))
			}
			contents = append(contents, genai.NewContentFromText(resultsAsText(names, texts), genai.RoleUser))
			continue
		case ResponsesInCallTurn:
			content.Parts = append(content.Parts, responses...)
			continue
		}
		if d.Break == UnorderedGeminiResults {
			// The API reads consecutive user contents as one turn, so a
			// model text content separates the responses: the call turn
			// is answered by its first response only.
			for i, p := range responses {
				if i > 0 {
					contents = append(contents, genai.NewContentFromText("Next result.", genai.RoleModel))
				}
				contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{p}})
			}
		} else if len(responses) > 0 {
			contents = append(contents, &genai.Content{Role: genai.RoleUser, Parts: responses})
		}
		answered = true
	}
	return "", errTooManyTurns(t.MaxTurns)
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
// `displayName` and `$ref` system), or the mistake of the driver's break.
func (d *Driver) geminiMediaPart(m task.Media, data []byte, name string) *genai.FunctionResponsePart {
	blob := &genai.FunctionResponseBlob{MIMEType: m.MimeType, Data: data, DisplayName: name}
	switch d.Break {
	case UnsupportedMIME:
		blob.MIMEType = "application/octet-stream"
	case DanglingRef:
		blob.DisplayName = ""
	case FileDataParts:
		// fileData naming an uploaded file is accepted; one without a
		// fileUri carries no media at all.
		return &genai.FunctionResponsePart{FileData: &genai.FunctionResponseFileData{MIMEType: m.MimeType, DisplayName: name}}
	}
	return &genai.FunctionResponsePart{InlineData: blob}
}

func stripSignatures(c *genai.Content) *genai.Content {
	out := &genai.Content{Role: c.Role}
	for _, p := range c.Parts {
		cp := *p
		cp.ThoughtSignature = nil
		out.Parts = append(out.Parts, &cp)
	}
	return out
}

// geminiResponse converts a CallToolResult to a functionResponse: response
// is always an object — structuredContent as is, text as {"output": …},
// errors as {"error": …} (go-genai FunctionResponse.Response doc); media
// become inlineData parts with a displayName referenced by {"$ref": …}
// on Gemini 3 (https://ai.google.dev/gemini-api/docs/function-calling#multimodal) and a text
// note on older models, which reject multimodal function responses.
func (d *Driver) geminiResponse(r task.CallToolResult, multimodal bool) *genai.FunctionResponse {
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
		text = plainText(task.CallToolResult{Content: r.Content}, d.Break)
	}
	switch {
	case r.IsError && d.Break != OmitIsError:
		if text == "" && r.StructuredContent != nil {
			text = string(mustJSON(r.StructuredContent))
		}
		fr.Response = map[string]any{"error": text}
	case r.StructuredContent != nil && d.Break == GeminiStringify:
		fr.Response = map[string]any{"output": string(mustJSON(r.StructuredContent))}
	case r.StructuredContent != nil:
		fr.Response = map[string]any{}
		for k, v := range r.StructuredContent {
			fr.Response[k] = v
		}
	default:
		fr.Response = map[string]any{"output": text}
	}
	for i, m := range media {
		data, err := base64.StdEncoding.DecodeString(m.Data)
		if err != nil {
			continue
		}
		name := mediaName(m, i)
		if d.Break == DuplicateDisplayName {
			name = "attachment"
		}
		fr.Parts = append(fr.Parts, d.geminiMediaPart(m, data, name))
		// Structured content may already reference the part; each
		// displayName is referenced once.
		if !refersTo(fr.Response, name) {
			fr.Response[fmt.Sprintf("attachment_%d", i+1)] = map[string]any{"$ref": name}
		}
		if d.Break == DuplicateRef && i == 0 {
			fr.Response["attachment_again"] = map[string]any{"$ref": name}
		}
	}
	return fr
}
