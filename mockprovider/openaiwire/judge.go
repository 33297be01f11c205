package openaiwire

import "fmt"

// What the conformance suite's judge says alike of both OpenAI APIs:
// their guides, and the error wording. They have no error flag, so an
// error reaches the model by what the output says, in whatever wrapping
// the library gives it.
const (
	Guide           = "https://platform.openai.com/docs/guides/function-calling"
	ToolChoiceDoc   = "https://platform.openai.com/docs/guides/function-calling#tool-choice"
	StrictDoc       = "https://platform.openai.com/docs/guides/function-calling#strict-mode"
	ForcedChoice    = `tool_choice "required" or a named function`
	ErrorSummary    = `A tool error (MCP isError) reaches the model as an error: the API has no error flag, so the output carries the tool's error (its text, or the substance of it, in any wrapping) or says that the call failed`
	ErrorWhy        = "data the model needs is lost: with no flag on the wire, the output is the only way the model learns that the call failed and why"
	ErrorForm       = `an output that carries the tool's error text, in any wrapping ("Error: …", "An error occurred while …", a JSON {"error": …})`
	ErrorFix        = `send the tool's error text as the output, wrapped as the library likes (e.g. "Error: <message>"); never an empty or success-looking output`
	ByCallIDSummary = "Each result references the call it answers (by call id): no result carries another call's data"
)

// FormatCallID is the id the OpenAI APIs give call i of a format case.
// The variables the OpenAI SDKs read, which the driver contract sets.
const (
	EnvBaseURL = "OPENAI_BASE_URL" // includes /v1
	EnvKey     = "OPENAI_API_KEY"
)

// DriverEnv is the driver contract's environment for both OpenAI APIs.
func DriverEnv(serverURL, key string) map[string]string {
	return map[string]string{EnvBaseURL: serverURL + "/v1", EnvKey: key}
}

func FormatCallID(tag string, i int) string { return fmt.Sprintf("call_tw%s%d", tag, i) }
