package refdriver

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/checks"
	core "github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/task"
)

// mistake is a row of the table: the shared part (name, description,
// the rules it must fail, the shared hooks) and the hooks of this loop.
type mistake struct {
	core.Mistake
	// model is the model named (in the path) in place of the task's.
	model func(string) string
	// start replaces the first request's contents (and may edit config).
	start func(t *task.Task, config *genai.GenerateContentConfig) []*genai.Content
	// multimodal reports whether media go in function responses as parts
	// (honest: on Gemini 3 models only).
	multimodal func(model string) bool
	// reply replaces what goes back after a model content with calls.
	reply func(m *mistake, callTurn *genai.Content, responses []*genai.Part) ([]*genai.Content, bool)
	// response edits each function response once its id and name are set.
	response func(*genai.FunctionResponse)
	// structured replaces the response made of structured content.
	structured func(map[string]any) map[string]any
	// displayName replaces the displayName of a media part.
	displayName func(string) string
	// referenced runs after the response references the media part name.
	referenced func(response map[string]any, name string, i int)
	// mediaPartHook replaces the multimodal part of a medium.
	mediaPartHook func(md task.Media, data []byte, name string) *genai.FunctionResponsePart
}

const gem = conv.Gemini

// mistakes is the table of the mistakes the driver makes on Gemini, each
// with the rules the suite must fail for it.
var mistakes = []mistake{
	{Mistake: core.SwappedIDs.MayFailing(checks.ID(gem, checks.MatchesCall))},
	{Mistake: core.UnansweredCall.Failing("gemini.function-response-count", checks.ID(gem, checks.ResultsSent)).MayFailing("gemini.function-call-after-user")},
	{Mistake: core.OmitIsError.Failing(checks.ID(gem, checks.ErrorFlagged))},
	{Mistake: core.DropData.MayFailing(checks.ID(gem, checks.StructuredObject))},
	{Mistake: core.CrashOnUnknownTool},
	{Mistake: core.IgnoreFinalText},
	{Mistake: core.ResultsAsUserText.Failing(checks.ID(gem, checks.ResultsSent)), reply: resultsAsUserText},
	{Mistake: core.Mistake{Name: "gemini-stringify-response", Description: `send structured results as {"output": "<JSON string>"} instead of an object`}.
		Failing(checks.ID(gem, checks.StructuredObject)),
		structured: func(s map[string]any) map[string]any { return map[string]any{"output": string(core.MustJSON(s))} }},
	{Mistake: core.Mistake{Name: "reorder-same-name", Description: "send Gemini function responses in reverse call order",
		Hooks: core.Hooks{Batch: func(as []core.Answer) []core.Answer {
			for i, j := 0, len(as)-1; i < j; i, j = i+1, j-1 {
				as[i], as[j] = as[j], as[i]
			}
			return as
		}}}.Failing(checks.ID(gem, checks.MatchesCall), "gemini.function-response-order").
		Killing(core.Kill{GeminiCallIDs: true, Fails: []string{"gemini.function-response-order-ids"}, MayFail: []string{checks.ID(gem, checks.MatchesCall)}})},
	{Mistake: core.Mistake{Name: "strip-signature", Description: "rebuild the model turn without its thought signatures"}.Failing("gemini.thought-signature"),
		reply: func(_ *mistake, callTurn *genai.Content, responses []*genai.Part) ([]*genai.Content, bool) {
			return honestReply(stripSignatures(callTurn), responses), true
		}},
	{Mistake: core.Mistake{Name: "corrupt-signature", Description: "replay function calls with a thought signature the model never issued"}.
		Failing("gemini.thought-signature-issued").Rewriting(corruptSignatures())},
	{Mistake: core.Mistake{Name: "sign-parallel-calls", Description: "replay parallel calls after the first with a thought signature of the driver's own (the model signs only the first)",
		Kill: core.Kill{Scenarios: []string{"gemini3-signature-parallel"}}}.
		Failing("gemini.parallel-call-signature").Rewriting(signSiblings())},
	{Mistake: core.Mistake{Name: "duplicate-ref", Description: "reference the same displayName twice from a function response"}.
		Failing("gemini.multimodal-response-ref-once"),
		referenced: func(response map[string]any, name string, i int) {
			if i == 0 {
				response["attachment_again"] = map[string]any{"$ref": name}
			}
		}},
	{Mistake: core.Mistake{Name: "gemini2-multimodal", Description: "attach inlineData parts to function responses on every model"}.
		Failing("gemini.multimodal-response-model"), multimodal: func(string) bool { return true }},
	// The API reads consecutive user contents as one turn, so a model
	// text content separates the responses: the call turn is answered
	// by its first response only.
	{Mistake: core.Mistake{Name: "split-gemini-responses", Description: "send each function response of a batch in its own content, a model text content between them"}.
		Failing("gemini.function-response-count", "gemini.function-response-after-call"),
		reply: func(_ *mistake, callTurn *genai.Content, responses []*genai.Part) ([]*genai.Content, bool) {
			reply := []*genai.Content{callTurn}
			for i, p := range responses {
				if i > 0 {
					reply = append(reply, genai.NewContentFromText("Next result.", genai.RoleModel))
				}
				reply = append(reply, &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{p}})
			}
			return reply, true
		}},
	{Mistake: core.Mistake{Name: "gemini-args-string", Description: "replay functionCall.args as a JSON string"}.
		Failing("gemini.function-call-args-object").Rewriting(core.EachPath([]string{"contents.#.parts.#.functionCall.args"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote(v.Raw), v.IsObject()
	}))},
	{Mistake: core.Mistake{Name: "gemini-response-string", Description: "send functionResponse.response as a JSON string"}.
		Failing("gemini.function-response-object").
		MayFailing(checks.ID(gem, checks.ErrorFlagged), checks.ID(gem, checks.CarriesData), checks.ID(gem, checks.CarriesMedia), checks.ID(gem, checks.StructuredObject)).
		Rewriting(core.EachPath([]string{"contents.#.parts.#.functionResponse.response"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote(v.Raw), v.IsObject()
		}))},
	{Mistake: core.Mistake{Name: "gemini-role-function", Description: `send function responses in a content with role "function"`}.
		Failing("gemini.valid-role").Rewriting(responsesRole("function"))},
	{Mistake: core.Mistake{Name: "gemini-role-tool", Description: `send function responses in a content with role "tool" (as older docs showed)`}.
		Failing("gemini.valid-role").Rewriting(responsesRole("tool"))},
	{Mistake: core.Mistake{Name: "responses-in-call-turn", Description: "append the function responses to the model's content instead of a new user content"}.
		Failing("gemini.call-turn-not-mixed"),
		reply: func(_ *mistake, callTurn *genai.Content, responses []*genai.Part) ([]*genai.Content, bool) {
			callTurn.Parts = append(callTurn.Parts, responses...)
			return []*genai.Content{callTurn}, false
		}},
	{Mistake: core.Mistake{Name: "prompt-as-system-instruction", Description: "send the prompt as systemInstruction, leaving contents empty"}.
		Failing("gemini.contents-required"),
		start: func(t *task.Task, config *genai.GenerateContentConfig) []*genai.Content {
			config.SystemInstruction = genai.NewContentFromText(strings.TrimSpace(t.System+"\n"+t.Prompt), genai.RoleUser)
			return nil
		}},
	{Mistake: core.Mistake{Name: "response-id-not-echoed", Description: "leave functionResponse.id empty when the functionCall had an id",
		Kill: core.Kill{GeminiCallIDs: true}}.Failing("gemini.function-response-id"),
		response: func(fr *genai.FunctionResponse) { fr.ID = "" }},
	{Mistake: core.Mistake{Name: "duplicate-display-name", Description: "give every multimodal part of a function response the same displayName"}.
		Failing("gemini.multimodal-response-display-name-unique").MayFailing("gemini.multimodal-response-ref-resolves"),
		displayName: func(string) string { return "attachment" }},
	{Mistake: core.Mistake{Name: "file-data-parts", Description: "send tool media as fileData without a fileUri (the bytes dropped) instead of inlineData"}.
		Failing("gemini.multimodal-response-inline-data").MayFailing("gemini.multimodal-response-ref-resolves", checks.ID(gem, checks.CarriesMedia), checks.ID(gem, checks.CarriesData)),
		// fileData naming an uploaded file is accepted; one without a
		// fileUri carries no media at all.
		mediaPartHook: func(md task.Media, _ []byte, name string) *genai.FunctionResponsePart {
			return &genai.FunctionResponsePart{FileData: &genai.FunctionResponseFileData{MIMEType: md.MimeType, DisplayName: name}}
		}},
	{Mistake: core.Mistake{Name: "unsupported-mime", Description: "label every multimodal part application/octet-stream"}.
		Failing("gemini.multimodal-response-mime").MayFailing(checks.ID(gem, checks.CarriesData)),
		mediaPartHook: func(_ task.Media, data []byte, name string) *genai.FunctionResponsePart {
			return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: "application/octet-stream", Data: data, DisplayName: name}}
		}},
	{Mistake: core.Mistake{Name: "dangling-ref", Description: `reference multimodal parts with {"$ref": …} but send them without a displayName`}.
		Failing("gemini.multimodal-response-ref-resolves"),
		mediaPartHook: func(md task.Media, data []byte, _ string) *genai.FunctionResponsePart {
			return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: md.MimeType, Data: data}}
		}},
	{Mistake: core.Mistake{Name: "empty-gemini-part", Description: `leave an empty part ({}) in the first content, where a dropped attachment was`}.
		Failing("gemini.part-has-data").Rewriting(func(body []byte) []byte {
		body, _ = sjson.SetRawBytes(body, "contents.0.parts.-1", []byte(`{}`))
		return body
	})},
	{Mistake: core.DropFirstUserTurn.Failing("gemini.function-call-after-user").
		Killing(core.Kill{StrictRoles: true, Fails: []string{"gemini.function-call-after-user"}}).Rewriting(core.DropFirst("contents"))},

	// The model.
	{Mistake: core.UnknownModel.Failing("gemini.model-exists"),
		model: func(string) string { return "gemini-1.5-flash" }}, // retired: the API answers 404

	// The request's shape.
	{Mistake: core.UnknownMember.Failing("gemini.known-fields")},
	{Mistake: core.WrongMemberType.Failing("gemini.field-types").Rewriting(core.SetKeys(map[string]any{"generationConfig.temperature": "warm"}))},
	{Mistake: core.TruncatedBody.Failing("gemini.valid-json")},
	{Mistake: core.ToolControlsWithoutTools.Failing("gemini.function-calling-config-needs-declarations").
		Rewriting(core.Chain(core.DeleteKey("tools"), core.SetKeys(map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "AUTO"}}})))},
	{Mistake: core.ForceUndeclaredTool.Failing("gemini.allowed-function-names-declared").
		Rewriting(core.SetKeys(map[string]any{"toolConfig": map[string]any{"functionCallingConfig": map[string]any{"mode": "ANY", "allowedFunctionNames": []string{"no_such_tool"}}}}))},
	{Mistake: core.BadToolName.Failing("gemini.function-name-valid").Rewriting(core.EachPath([]string{"tools.#.functionDeclarations.#.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("get weather!"), v.Type == gjson.String
	}))},
	{Mistake: core.Mistake{Name: "json-schema-as-parameters", Description: "send the JSON Schema of each function (additionalProperties included) as parameters instead of parametersJsonSchema"}.
		Failing("gemini.parameters-schema-subset").Rewriting(moveSchema(func(schema gjson.Result) string {
		out, _ := sjson.Set(schema.Raw, "additionalProperties", false)
		return out
	}, false))},
	{Mistake: core.Mistake{Name: "both-parameter-schemas", Description: "send parameters beside parametersJsonSchema"}.
		Failing("gemini.parameters-one-schema").Rewriting(moveSchema(func(gjson.Result) string { return `{"type":"OBJECT"}` }, true))},
	{Mistake: core.Mistake{Name: "required-undefined-property", Description: "declare parameters whose required list names a property it does not define"}.
		Failing("gemini.schema-required-defined").Rewriting(moveSchema(func(gjson.Result) string {
		return `{"type":"OBJECT","properties":{"location":{"type":"STRING"}},"required":["no_such_property"]}`
	}, false))},

	// The answer's form and count.
	{Mistake: core.Mistake{Name: "gemini-json-mode-with-functions", Description: "ask gemini-2.5-flash for responseMimeType application/json beside function declarations (only Gemini 3 takes both)"}.
		Failing("gemini.function-calling-json-mime").Rewriting(core.SetKeys(map[string]any{"generationConfig.responseMimeType": "application/json"})),
		model: func(string) string { return "gemini-2.5-flash" }},
	{Mistake: core.Mistake{Name: "gemini3-candidates", Description: "ask a Gemini 3 model for two candidates"}.
		Failing("gemini.candidate-count-model").Rewriting(core.SetKeys(map[string]any{"generationConfig.candidateCount": 2}))},
	{Mistake: core.Mistake{Name: "too-many-candidates", Description: "ask for nine candidates (the API gives at most eight, and one on Gemini 3)"}.
		Failing("gemini.candidate-count-range", "gemini.candidate-count-model").Rewriting(core.SetKeys(map[string]any{"generationConfig.candidateCount": 9}))},
	{Mistake: core.Mistake{Name: "response-schemas-without-mime", Description: "send responseSchema and responseJsonSchema (with a keyword it does not support), both, without responseMimeType"}.
		Failing("gemini.response-schema-needs-mime", "gemini.response-one-schema", "gemini.response-json-schema-subset").Rewriting(core.SetKeys(map[string]any{
		"generationConfig.responseSchema":     map[string]any{"type": "OBJECT", "properties": map[string]any{"answer": map[string]any{"type": "STRING"}}},
		"generationConfig.responseJsonSchema": map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string", "minLength": 1}}},
	}))},
	{Mistake: core.Mistake{Name: "allowed-names-with-auto", Description: "limit the callable functions with allowedFunctionNames under mode AUTO, where they limit nothing"}.
		Failing("gemini.allowed-function-names-mode").Rewriting(allowDeclaredUnderAuto)},

	// What only the model's calls and the task show.
	{Mistake: core.DropLastCall.Failing(checks.ID(gem, checks.ResultsSent)).Rewriting(dropLastCall)},
	{Mistake: core.DuplicateResult.Failing(checks.ID(gem, checks.OneResultPerCall)).MayFailing("gemini.function-response-count", checks.ID(gem, checks.MatchesCall)).
		Rewriting(duplicateFirstResult)},
	{Mistake: core.ToolChoiceLost.Rewriting(core.DeleteKey("toolConfig"))},
	{Mistake: core.MaxOutputTokensIgnored},
	{Mistake: core.KeepForcing},

	// Correct variants: nothing may fail.
	{Mistake: core.LibraryErrorWording},
	{Mistake: core.ValidateArguments},
	{Mistake: core.DropOutputSchema}, // what only the task shows: its output schema
}

func resultsAsUserText(_ *mistake, _ *genai.Content, responses []*genai.Part) ([]*genai.Content, bool) {
	var names, texts []string
	for _, p := range responses {
		names = append(names, p.FunctionResponse.Name)
		texts = append(texts, string(core.MustJSON(p.FunctionResponse.Response)))
	}
	return []*genai.Content{genai.NewContentFromText(core.ResultsAsText(names, texts), genai.RoleUser)}, false
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

func corruptSignatures() func([]byte) []byte {
	forged := strconv.Quote(base64.StdEncoding.EncodeToString([]byte("a signature nobody issued")))
	return core.EachPath([]string{"contents.#.parts.#.thoughtSignature"}, func(v gjson.Result) (string, bool) {
		return forged, v.Type == gjson.String && v.Str != ""
	})
}

// signSiblings puts a signature nobody issued on every functionCall part
// after a model content's first, as a library filling in the ones the
// model left out does.
func signSiblings() func([]byte) []byte {
	forged := base64.StdEncoding.EncodeToString([]byte("DUMMY_SIGNATURE"))
	return func(body []byte) []byte {
		for i, c := range gjson.GetBytes(body, "contents").Array() {
			first := true
			for j, p := range c.Get("parts").Array() {
				if !p.Get("functionCall").Exists() {
					continue
				}
				if !first {
					body, _ = sjson.SetBytes(body, "contents."+strconv.Itoa(i)+".parts."+strconv.Itoa(j)+".thoughtSignature", forged)
				}
				first = false
			}
		}
		return body
	}
}

// responsesRole gives the contents of function responses the role.
func responsesRole(role string) func([]byte) []byte {
	return func(body []byte) []byte {
		for i, c := range gjson.GetBytes(body, "contents").Array() {
			if c.Get("parts.0.functionResponse").Exists() {
				body, _ = sjson.SetBytes(body, "contents."+strconv.Itoa(i)+".role", role)
			}
		}
		return body
	}
}

// moveSchema sets each function declaration's parameters to what schema
// makes of its parametersJsonSchema, which it keeps only if keep.
func moveSchema(schema func(gjson.Result) string, keep bool) func([]byte) []byte {
	return func(body []byte) []byte {
		for _, p := range core.Expand(body, "tools.#.functionDeclarations.#") {
			js := gjson.GetBytes(body, p+".parametersJsonSchema")
			if !js.Exists() {
				continue
			}
			body, _ = sjson.SetRawBytes(body, p+".parameters", []byte(schema(js)))
			if !keep {
				body, _ = sjson.DeleteBytes(body, p+".parametersJsonSchema")
			}
		}
		return body
	}
}

// dropLastCall removes the last functionCall part of every model content
// with two or more, and the last functionResponse part of the content
// after it (responses pair with calls by position).
func dropLastCall(body []byte) []byte {
	contents := gjson.GetBytes(body, "contents")
	if !contents.IsArray() {
		return body
	}
	var out []string
	dropNextResponse := false
	for _, c := range contents.Array() {
		var calls, responses []int
		for i, p := range c.Get("parts").Array() {
			if p.Get("functionCall").Exists() {
				calls = append(calls, i)
			}
			if p.Get("functionResponse").Exists() {
				responses = append(responses, i)
			}
		}
		raw := c.Raw
		switch {
		case len(calls) >= 2:
			raw, _ = sjson.Delete(raw, "parts."+strconv.Itoa(calls[len(calls)-1]))
			dropNextResponse = true
		case dropNextResponse && len(responses) > 0:
			raw, _ = sjson.Delete(raw, "parts."+strconv.Itoa(responses[len(responses)-1]))
			dropNextResponse = false
		}
		out = append(out, raw)
	}
	return core.SetArray(body, "contents", out)
}

// duplicateFirstResult sends the first functionResponse part of every
// content twice.
func duplicateFirstResult(body []byte) []byte {
	return core.MapArray("contents", func(c gjson.Result) []string {
		parts := c.Get("parts").Array()
		for i, p := range parts {
			if p.Get("functionResponse").Exists() {
				return []string{core.InsertAfter(c.Raw, "parts", parts, i)}
			}
		}
		return []string{c.Raw}
	})(body)
}

// allowDeclaredUnderAuto sets mode AUTO with every declared function in
// allowedFunctionNames (declared names, so only the mode is wrong).
func allowDeclaredUnderAuto(body []byte) []byte {
	var names []string
	for _, n := range gjson.GetBytes(body, "tools.#.functionDeclarations.#.name").Array() {
		for _, name := range n.Array() {
			names = append(names, name.Str)
		}
	}
	if len(names) == 0 {
		return body
	}
	out, err := sjson.SetBytes(body, "toolConfig.functionCallingConfig", map[string]any{"mode": "AUTO", "allowedFunctionNames": names})
	if err != nil {
		return body
	}
	return out
}
