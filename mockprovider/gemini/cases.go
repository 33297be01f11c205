package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Paths the cases post to.
const (
	path25 = "/v1beta/models/gemini-2.5-flash:generateContent"
	path3  = "/v1beta/models/gemini-3-flash-preview:generateContent"
)

// Bodies shared by the cases. Gemini 3 history carries a dummy signature
// that bypasses validation, so only the rule under test can fail.
const (
	userAsk    = `{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}`
	userPhoto  = `{"role":"user","parts":[{"text":"Show me the photo of product PRD-001."}]}`
	weatherFn  = `{"functionDeclarations":[{"name":"get_weather","description":"Get current weather for a city.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}]}`
	photoFn    = `{"functionDeclarations":[{"name":"get_product_photo","description":"Retrieves the product photo.","parameters":{"type":"OBJECT","properties":{"product_id":{"type":"STRING"}},"required":["product_id"]}}]}`
	callParis  = `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CiQBDDnWx8Q="}]}`
	callPhoto  = `{"role":"model","parts":[{"functionCall":{"name":"get_product_photo","args":{"product_id":"PRD-001"}},"thoughtSignature":"skip_thought_signature_validator"}]}`
	pngBase64  = "iVBORw0KGgo="
	sunnyReply = `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny, 22C"}}}]}`
)

// body builds a request from contents and optional tools.
func body(tools string, contents ...string) json.RawMessage {
	s := `{"contents":[` + strings.Join(contents, ",") + `]`
	if tools != "" {
		s += `,"tools":[` + tools + `]`
	}
	return compact(s + "}")
}

func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(fmt.Sprintf("gemini: bad case JSON: %v\n%s", err, s))
	}
	return b.Bytes()
}

// photoResponse is a multimodal function response with the given parts
// and structured response.
func photoResponse(response string, parts ...string) string {
	return `{"role":"user","parts":[{"functionResponse":{"name":"get_product_photo","response":` + response + `,"parts":[` + strings.Join(parts, ",") + `]}}]}`
}

func inline(mime, name string) string {
	return fmt.Sprintf(`{"inlineData":{"mimeType":%q,"data":%q,"displayName":%q}}`, mime, pngBase64, name)
}

// RuleCases returns a breaking and a corrected request for every Gemini
// rule with a check (some rules have more than one breach worth showing).
func RuleCases() []dialect.RuleCase {
	bad := http.StatusBadRequest
	photoRef := `{"product_id":"PRD-001","image_ref":{"$ref":"product_photo.png"}}`
	return append(capabilityCases(), []dialect.RuleCase{
		{
			Rule: "gemini.function-response-object", Name: "response sent as a JSON string", Path: path25,
			Bad:        body(weatherFn, userAsk, callParis, `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":"sunny"}}]}`),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Invalid value at 'contents[2].parts[0].function_response.response' (type.googleapis.com/google.protobuf.Struct), "sunny"`,
		},
		{
			Rule: "gemini.function-response-object", Name: "response sent as a list", Path: path25,
			Bad:        body(weatherFn, userAsk, callParis, `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":["sunny"]}}]}`),
			Good:       body(weatherFn, userAsk, callParis, `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":["sunny"]}}}]}`),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Unknown name "response" at 'contents[2].parts[0].function_response': Proto field is not repeating, cannot start list.`,
		},
		{
			Rule: "gemini.function-call-args-object", Name: "call args replayed as a JSON string", Path: path25,
			Bad:        body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":"{\"city\":\"Paris\"}"}}]}`, sunnyReply),
			Good:       body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`, sunnyReply),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Invalid value at 'contents[1].parts[0].function_call.args' (type.googleapis.com/google.protobuf.Struct), "{\"city\":\"Paris\"}"`,
		},
		{
			Rule: "gemini.contents-required", Name: "no contents", Path: path25,
			Bad:        compact(`{"contents":[],"tools":[` + weatherFn + `]}`),
			Good:       body(weatherFn, userAsk),
			WantStatus: bad, WantMessage: MsgContentsMissing,
		},
		{
			Rule: "gemini.part-has-data", Name: "an empty part", Path: path25,
			Bad:        compact(`{"contents":[{"role":"user","parts":[{"text":"What's the weather in Paris?"},{}]}]}`),
			Good:       compact(`{"contents":[{"role":"user","parts":[{"text":"What's the weather in Paris?"},{"text":" "}]}]}`),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgPartNoData, 0, 1),
		},
		{
			Rule: "gemini.function-name-valid", Name: "function name with a space", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"get_weather"`, `"get weather"`, 1), userAsk),
			Good:       body(weatherFn, userAsk),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgFunctionNameFormat, 0, 0),
		},
		{
			Rule: "gemini.valid-role", Name: "function response in a 'tool' turn (as older docs showed)", Path: path25,
			Bad:        body(weatherFn, userAsk, callParis, strings.Replace(sunnyReply, `"role":"user"`, `"role":"tool"`, 1)),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: bad, WantMessage: MsgRoleClassic,
		},
		{
			Rule: "gemini.call-turn-not-mixed", Name: "call and response merged into one content", Path: path25,
			Bad: body(weatherFn, userAsk,
				`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: bad, WantMessage: MsgCallTurnMixed,
		},
		{
			Rule: "gemini.function-response-after-call", Name: "response without the call turn before it", Path: path25,
			Bad:        body(weatherFn, userAsk, sunnyReply),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: bad, WantMessage: MsgResponseAfterCall,
		},
		{
			Rule: "gemini.function-call-after-user", Name: "history starting with a function call", Path: path25,
			Bad:        body(weatherFn, callParis, sunnyReply),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: bad, WantMessage: MsgCallAfterUser,
		},
		{
			Rule: "gemini.function-call-after-user", Name: "call turn after a model text turn", Path: path25,
			Bad:        body(weatherFn, userAsk, `{"role":"model","parts":[{"text":"Let me check."}]}`, callParis, sunnyReply),
			Good:       body(weatherFn, userAsk, `{"role":"model","parts":[{"text":"Let me check."},{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`, sunnyReply),
			WantStatus: bad, WantMessage: MsgCallAfterUser,
		},
		{
			Rule: "gemini.function-response-count", Name: "two parallel calls, one response", Path: path25,
			Bad: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""),
				`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`),
			Good:       body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), twoResponses("get_weather", "get_weather")),
			WantStatus: bad, WantMessage: MsgResponseCount,
		},
		{
			Rule: "gemini.function-response-count", Name: "two call turns of the model, one response (both answered together: accepted)", Path: path25,
			Bad: body(weatherFn, userAsk, callParis, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
				`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`),
			Good: body(weatherFn, userAsk, callParis, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
				twoResponses("get_weather", "get_weather")),
			WantStatus: bad, WantMessage: MsgResponseCount,
		},
		{
			// crewAI records gemini-2.5-flash accepting three calls answered by
			// three consecutive user contents (testdata/corpus/crewai.jsonl,
			// TestGeminiNativeToolCalling parallel cassettes #2).
			Rule: "gemini.function-response-count", Name: "two parallel calls, responses in two consecutive user contents, one missing", Path: path25,
			Bad: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), sunnyReply,
				`{"role":"user","parts":[{"text":"Go on."}]}`),
			Good: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), sunnyReply, sunnyReply,
				`{"role":"user","parts":[{"text":"Go on."}]}`),
			WantStatus: bad, WantMessage: MsgResponseCount,
		},
		{
			Rule: "gemini.function-response-after-call", Name: "second response content after a model text turn (consecutive user contents after the call turn: accepted)", Path: path25,
			Bad:        body(weatherFn, userAsk, callParis, `{"role":"model","parts":[{"text":"Let me check."}]}`, sunnyReply),
			Good:       body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), sunnyReply, sunnyReply),
			WantStatus: bad, WantMessage: MsgResponseAfterCall,
		},
		{
			Rule: "gemini.function-response-order", Name: "parallel responses out of call order", Path: path25,
			Bad:  body(weatherFn, userAsk, twoCalls("get_weather", "get_time", ""), twoResponses("get_time", "get_weather")),
			Good: body(weatherFn, userAsk, twoCalls("get_weather", "get_time", ""), twoResponses("get_weather", "get_time")),
		},
		{
			Rule: "gemini.function-response-id", Name: "response id differs from the call id", Path: path25,
			Bad: body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"id":"tool_0","name":"get_weather","args":{"city":"Paris"}}}]}`,
				`{"role":"user","parts":[{"functionResponse":{"id":"tool_1","name":"get_weather","response":{"output":"sunny"}}}]}`),
			Good: body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"id":"tool_0","name":"get_weather","args":{"city":"Paris"}}}]}`,
				`{"role":"user","parts":[{"functionResponse":{"id":"tool_0","name":"get_weather","response":{"output":"sunny"}}}]}`),
		},
		{
			Rule: "gemini.thought-signature", Name: "Gemini 3 call replayed without its signature", Path: path3,
			Bad:        body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`, sunnyReply),
			Good:       body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"`+bypassSignatures[0]+`"}]}`, sunnyReply),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgSignatureFormat, "get_weather", 2),
		},
		{
			Rule: "gemini.thought-signature", Name: "parallel batch interleaved FC1,FR1,FC2,FR2 on Gemini 3", Path: path3,
			Bad: body(weatherFn, userAsk,
				`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"`+bypassSignatures[1]+`"}]}`,
				`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`,
				`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
				`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"rainy"}}}]}`),
			Good:       body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", bypassSignatures[1]), twoResponses("get_weather", "get_weather")),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgSignatureFormat, "get_weather", 4),
		},
		{
			Rule: "gemini.multimodal-response-model", Name: "functionResponse.parts on Gemini 2.5", Path: "/v1beta/models/gemini-2.5-flash:generateContent",
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "product_photo.png"))),
			Good:       body(photoFn, userPhoto, callPhoto, `{"role":"user","parts":[{"functionResponse":{"name":"get_product_photo","response":{"product_id":"PRD-001","image":"(not available on this model)"}}}]}`),
			WantStatus: bad, WantMessage: MsgMultimodalNotSupp,
		},
		{
			Rule: "gemini.multimodal-response-inline-data", Name: "multimodal part whose fileData has no fileUri (an uploaded file's: accepted)", Path: path3,
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, `{"fileData":{"mimeType":"image/png","displayName":"product_photo.png"}}`)),
			Good:       body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, `{"fileData":{"mimeType":"image/png","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/p4o2x1","displayName":"product_photo.png"}}`)),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgInlineDataFormat, 2, 0, 0),
		},
		{
			Rule: "gemini.multimodal-response-mime", Name: "GIF in a function response", Path: path3,
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/gif", "product_photo.png"))),
			Good:       body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "product_photo.png"))),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgMIMEFormat, 2, 0, 0, "image/gif"),
		},
		{
			Rule: "gemini.multimodal-response-display-name-unique", Name: "two parts with the same displayName", Path: path3,
			Bad: body(photoFn, userPhoto, callPhoto, photoResponse(photoRef,
				inline("image/png", "product_photo.png"), inline("image/png", "product_photo.png"))),
			Good: body(photoFn, userPhoto, callPhoto, photoResponse(photoRef,
				inline("image/png", "product_photo.png"), inline("image/png", "product_back.png"))),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgDisplayDupFormat, "product_photo.png", 2, 0),
		},
		{
			Rule: "gemini.multimodal-response-ref-resolves", Name: "$ref naming no part", Path: path3,
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "photo.png"))),
			Good:       body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "product_photo.png"))),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgRefDangleFormat, "product_photo.png", 2, 0),
		},
		{
			Rule: "gemini.multimodal-response-ref-once", Name: "one displayName referenced twice", Path: path3,
			Bad: body(photoFn, userPhoto, callPhoto, photoResponse(
				`{"image_ref":{"$ref":"product_photo.png"},"thumbnail_ref":{"$ref":"product_photo.png"}}`, inline("image/png", "product_photo.png"))),
			Good: body(photoFn, userPhoto, callPhoto, photoResponse(
				`{"image_ref":{"$ref":"product_photo.png"},"thumbnail_ref":{"$ref":"thumbnail.png"}}`,
				inline("image/png", "product_photo.png"), inline("image/png", "thumbnail.png"))),
		},
		{
			Rule: ruleValidJSON, Name: "truncated body", Path: path25,
			Bad:        json.RawMessage(`{"contents":[{"parts":[{"text":"hi"}]}`),
			Good:       body("", userAsk),
			WantStatus: bad, WantMessage: "Invalid JSON payload received. Unexpected end of string.",
		},
		{
			Rule: ruleKnownFields, Name: "unknown top-level member (an OpenAI parameter)", Path: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"temperature":0.2}`),
			Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"temperature":0.2}}`),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Unknown name "temperature": Cannot find field.`,
		},
		{
			Rule: ruleKnownFields, Name: "unknown member in a content", Path: path25,
			Bad:        compact(`{"contents":[{"role":"user","content":"hi"}]}`),
			Good:       compact(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Unknown name "content" at 'contents[0]': Cannot find field.`,
		},
		{
			Rule: ruleSchemaSubset, Name: "JSON Schema's additionalProperties under parameters", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"required":["city"]`, `"required":["city"],"additionalProperties":false`, 1), userAsk),
			Good:       body(weatherFn, userAsk),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
		},
		{
			Rule: ruleSchemaSubset, Name: "const in a property schema", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":"STRING","const":"Paris"}`, 1), userAsk),
			Good:       body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":"STRING","enum":["Paris"]}`, 1), userAsk),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Unknown name "const" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`,
		},
		{
			Rule: ruleFieldTypes, Name: "temperature as a string", Path: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"temperature":"x"}}`),
			Good:       compact(`{"contents":[` + userAsk + `],"generationConfig":{"temperature":0.5}}`),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Invalid value at 'generation_config.temperature' (TYPE_FLOAT), "x"`,
		},
		{
			Rule: ruleFieldTypes, Name: "schema type as a list (JSON Schema's nullable form)", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":["string","null"]}`, 1), userAsk),
			Good:       body(strings.Replace(weatherFn, `"city":{"type":"STRING"}`, `"city":{"type":"STRING","nullable":true}`, 1), userAsk),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Unknown name "type" at 'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is not repeating, cannot start list.`,
		},
		{
			Rule: "gemini.parameters-one-schema", Name: "parameters and parametersJsonSchema both set", Path: path25,
			Bad: body(strings.Replace(weatherFn, `"parameters":`, `"parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"additionalProperties":false},"parameters":`, 1), userAsk),
			Good: body(strings.Replace(weatherFn, `"parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}`,
				`"parametersJsonSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`, 1), userAsk),
		},
		{
			Rule: "gemini.schema-required-defined", Name: "required names a property that is not declared", Path: path25,
			Bad:        body(strings.Replace(weatherFn, `"required":["city"]`, `"required":["city","ref"]`, 1), userAsk),
			Good:       body(weatherFn, userAsk),
			WantStatus: bad, WantMessage: fmt.Sprintf(msgRequiredUndefinedFormat, "tools[0].function_declarations[0].parameters", 1),
		},
		{
			Rule: "gemini.function-calling-config-needs-declarations", Name: "mode ANY without any function declared", Path: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`),
			Good:       compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`),
			WantStatus: bad, WantMessage: MsgCallingConfigWithoutDeclarations,
		},
		{
			Rule: "gemini.function-calling-config-needs-declarations", Name: "mode AUTO with no tool at all (beside Google Search only: accepted)", Path: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`),
			Good:       compact(`{"contents":[` + userAsk + `],"tools":[{"googleSearch":{}}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`),
			WantStatus: bad, WantMessage: MsgCallingConfigWithoutDeclarations,
		},
		{
			Rule: ruleFieldTypes, Name: "stopSequences holding a number (a single string is a list of one: accepted)", Path: path25,
			Bad:        compact(`{"contents":[` + userAsk + `],"generationConfig":{"stopSequences":5}}`),
			Good:       compact(`{"contents":` + userAsk + `,"tools":` + weatherFn + `,"generationConfig":{"stopSequences":"END"}}`),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Invalid value at 'generation_config.stop_sequences[0]' (TYPE_STRING), 5`,
		},
		{
			Rule: "gemini.allowed-function-names-declared", Name: "allowedFunctionNames naming an undeclared function", Path: path25,
			Bad:  compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_time"]}}}`),
			Good: compact(`{"contents":[` + userAsk + `],"tools":[` + weatherFn + `],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather"]}}}`),
		},
		{
			Rule: "gemini.thought-signature-issued", Name: "Gemini 3 call passed back with a signature the model did not issue", Path: path3,
			Bad:        body(weatherFn, userAsk, callParis, sunnyReply),
			Good:       body(weatherFn, userAsk, strings.Replace(callParis, "CiQBDDnWx8Q=", issuedParisSignature, 1), sunnyReply),
			WantStatus: bad, WantMessage: MsgCorruptedSignature,
		},
		{
			Rule: "gemini.thought-signature-issued", Name: "Gemini 3 call passed back with a forged signature (the base64 of a dummy value: accepted)", Path: path3,
			Bad:        body(weatherFn, userAsk, callParis, sunnyReply),
			Good:       body(weatherFn, userAsk, strings.Replace(callParis, "CiQBDDnWx8Q=", base64.StdEncoding.EncodeToString([]byte(bypassSignatures[0])), 1), sunnyReply),
			WantStatus: bad, WantMessage: MsgCorruptedSignature,
		},
		{
			Rule: ruleFieldTypes, Name: "thought signature that is not base64", Path: path25,
			Bad:        body(weatherFn, userAsk, strings.Replace(callParis, "CiQBDDnWx8Q=", "not base64!", 1), sunnyReply),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: bad, WantMessage: `Invalid JSON payload received. Invalid value at 'contents[1].parts[0].thought_signature' (TYPE_BYTES), "not base64!"`,
		},
		{
			Rule: "gemini.function-response-order-ids", Name: "parallel responses out of call order, each naming its call's id", Path: path3,
			Bad:  body(weatherFn, userAsk, idCalls(bypassSignatures[1], "c1", "c2"), idResponses("c2", "c1")),
			Good: body(weatherFn, userAsk, idCalls(bypassSignatures[1], "c1", "c2"), idResponses("c1", "c2")),
		},
	}...)
}

// twoCalls is a model turn with a parallel batch of two calls; sig, when
// set, signs the first.
func twoCalls(a, b, sig string) string {
	first := `{"functionCall":{"name":"` + a + `","args":{"city":"Paris"}}`
	if sig != "" {
		first += `,"thoughtSignature":"` + sig + `"`
	}
	return `{"role":"model","parts":[` + first + `},{"functionCall":{"name":"` + b + `","args":{"city":"Rome"}}}]}`
}

func twoResponses(a, b string) string {
	return `{"role":"user","parts":[{"functionResponse":{"name":"` + a + `","response":{"output":"first"}}},{"functionResponse":{"name":"` + b + `","response":{"output":"second"}}}]}`
}

// issuedParisSignature is a signature the mock issues for a get_weather
// call (the HMAC over a fixed nonce).
var issuedParisSignature = mintSignature(wire.NewIDs("rulecases"), "get_weather")

// idCalls is a model turn calling get_weather twice with the given ids;
// sig signs the first call.
func idCalls(sig, a, b string) string {
	return `{"role":"model","parts":[{"functionCall":{"id":"` + a + `","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + sig +
		`"},{"functionCall":{"id":"` + b + `","name":"get_weather","args":{"city":"Rome"}}}]}`
}

// idResponses answers idCalls' calls in the order of the ids given.
func idResponses(a, b string) string {
	return `{"role":"user","parts":[{"functionResponse":{"id":"` + a + `","name":"get_weather","response":{"output":"` + a + `"}}},{"functionResponse":{"id":"` + b + `","name":"get_weather","response":{"output":"` + b + `"}}}]}`
}
