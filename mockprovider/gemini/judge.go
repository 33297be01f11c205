package gemini

import (
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// Sources the judge cites for the Gemini API.
const (
	guide         = "https://ai.google.dev/gemini-api/docs/function-calling"
	toolChoiceDoc = "https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes"
	multimodalDoc = "https://ai.google.dev/gemini-api/docs/function-calling#multimodal"
	responseDoc   = "https://github.com/googleapis/go-genai/blob/v1.77.0/types.go (FunctionResponse.Response: \"output\" key for the output, \"error\" key for error details)"
	limitSource   = "https://ai.google.dev/api/generate-content#generationconfig (maxOutputTokens: the maximum number of tokens to include in a response candidate)"
)

// The variables the Google Gen AI SDKs read, which the driver contract
// sets (the SDKs take either key variable).
const (
	EnvBaseURL   = "GOOGLE_GEMINI_BASE_URL"
	EnvKey       = "GEMINI_API_KEY"
	EnvGoogleKey = "GOOGLE_API_KEY"
)

var judge = dialect.Judge{
	// Gemini 3, so thought signatures are exercised by default.
	DefaultModel: "gemini-3-flash-preview",
	DriverEnv: func(serverURL, key string) map[string]string {
		return map[string]string{EnvBaseURL: serverURL, EnvKey: key, EnvGoogleKey: key}
	},
	Guide:        guide,
	ForcedChoice: "functionCallingConfig mode ANY",
	ChoiceShape:  `toolConfig.functionCallingConfig {"mode": "ANY", "allowedFunctionNames": [name]}`,
	// Gemini leaves a cut call out of its answer: nothing to run.
	TruncatedSignal: `finishReason "MAX_TOKENS"`,
	ErrorLevel:      rules.MUST, ErrorSummary: `A tool error (MCP isError) is sent as functionResponse.response {"error": …} (not under "output")`, ErrorSource: responseDoc,
	ErrorWhy:           `data the model needs is lost: the "error" key is how the API tells the model that the call failed; under "output" the error reads as the tool's result`,
	ErrorForm:          `functionResponse.response {"error": …}`,
	ErrorFix:           `send {"error": "<message>"} as functionResponse.response`,
	ErrorMember:        "error",
	ResultsByPosition:  true,
	StructuredObjectIn: "functionResponse.response",
	LimitMember:        "generationConfig.maxOutputTokens",
	MatchSummary:       "Function responses come in call order with the call's name (and id when the call had one): no response carries another call's data",
	MediaInResults:     model.IsGemini3,
	ResultPath:         resultPath,
	ExtraChecks: []dialect.JudgeCheck{
		{Check: checks.ToolChoiceSent, Level: rules.MUST, Feature: "tool-choice", Summary: "The request carries the function calling mode the task asks for (toolConfig.functionCallingConfig mode ANY with allowedFunctionNames [name] for a forced function)", Source: toolChoiceDoc},
		{Check: checks.CarriesMedia, Level: rules.SHOULD, Feature: "images", Summary: "On Gemini 3 models, images and documents returned by a tool travel as functionResponse.parts inlineData", Source: multimodalDoc},
		{Check: checks.StructuredObject, Level: rules.SHOULD, Feature: "structured", Summary: "Structured tool output is sent as the functionResponse.response object, not as a JSON string", Why: "SHOULD: the data still reaches the model, as a JSON string; only its form is off", Source: responseDoc},
		{Check: checks.MaxOutputTokensSent, Level: rules.MUST, Feature: "truncation", Summary: "The first request carries the task's max_output_tokens as generationConfig.maxOutputTokens", Source: limitSource},
		{Check: checks.StructuredAnswer, Level: rules.MUST, Feature: "structured-output", Summary: `The request that gets the final answer carries the task's output schema as generationConfig {"responseMimeType": "application/json", "responseJsonSchema": …} (or responseSchema), and the driver reports that answer: JSON valid against the schema`, Source: "https://ai.google.dev/gemini-api/docs/structured-output (responseMimeType application/json with responseJsonSchema)"},
	},
}

// Judge is what the conformance suite's judge knows of the Gemini API.
func (d *Dialect) Judge() *dialect.Judge { return &judge }
