package reports

import (
	"time"
)

// sampleRun is a synthetic run covering every outcome in several dialects,
// shaped like what the suite produces. The excerpt of the Anthropic failure
// carries markup on purpose: every writer must escape it.
func sampleRun() *Run {
	const hostileExcerpt = `POST /v1/messages
{"model":"claude-sonnet-4-5","messages":[
  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{"city":"Paris"}}]},
  {"role":"user","content":[{"type":"text","text":"<script>alert('x')</script> here you go"},
                            {"type":"tool_result","tool_use_id":"toolu_01","content":"18°C & sunny"}]}]}

HTTP/1.1 400 Bad Request
X-Toolwire-Rule: anthropic.tool-result-first
{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: ` + "`tool_use`" + ` ids were found without ` + "`tool_result`" + ` blocks immediately after: toolu_01. Each ` + "`tool_use`" + ` block must have a corresponding ` + "`tool_result`" + ` block in the next message."}}`

	r := func(rule, level, dialect, scenario string, stream bool, outcome Outcome) Result {
		return Result{
			Rule: rule, Level: level, Dialect: dialect, Scenario: scenario, Stream: stream, Outcome: outcome,
			Summary:  summaries[rule],
			Source:   sources[rule],
			Duration: 12 * time.Millisecond,
		}
	}
	fail := r("anthropic.tool-result-first", "MUST", "anthropic", "parallel-same-tool", true, Fail)
	fail.Message = "tool_result blocks must come first in the user message; a text block came before them"
	fail.Expected = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C & sunny"},{"type":"text","text":"here you go"}]}`
	fail.Got = `{"role":"user","content":[{"type":"text","text":"here you go"},{"type":"tool_result","tool_use_id":"toolu_01","content":"18°C & sunny"}]}`
	fail.Excerpt = hostileExcerpt
	fail.Fix = "Put every tool_result block first in the user turn that answers the tool_use turn; append any text after them."

	warn := r("openai-chat.parallel-results-order", "SHOULD", "openai-chat", "parallel-same-tool", false, Warn)
	warn.Message = "tool messages answered call_2 before call_1; the API accepts it but models follow call order better"
	warn.Expected = "call_1, call_2"
	warn.Got = "call_2, call_1"
	warn.Fix = "Send tool messages in the order of the tool_calls array."

	errRes := r("gemini.function-response-name", "MUST", "gemini", "multimodal-result", true, Error)
	errRes.Message = "adapter process exited with status 2 before sending a request"
	errRes.Excerpt = "stderr:\npanic: runtime error: index out of range [1] with length 1"

	baselined := r("openai-responses.function-call-output-id", "MUST", "openai-responses", "tool-error-result", false, Fail)
	baselined.Message = "function_call_output.call_id \"fc_1\" does not match any function_call call_id"
	baselined.Expected = "call_abc123"
	baselined.Got = "fc_1"
	baselined.Excerpt = `{"model":"gpt-4.1","input":[{"role":"user","content":"Weather in Oslo?"},{"type":"function_call","call_id":"call_abc123","name":"get_weather","arguments":"{\"location\":\"Oslo\"}"},{"type":"function_call_output","call_id":"fc_1","output":"3°C <cloudy>"}]}`
	baselined.Path = "input.2.call_id"

	ns := r("gemini.multimodal-function-response", "MUST", "gemini", "multimodal-result", false, NotSupported)
	ns.Feature = "multimodal-results"

	stalePass := r("anthropic.tool-use-id-echo", "MUST", "anthropic", "single-call", false, Pass)

	results := []Result{
		r("anthropic.tool-result-first", "MUST", "anthropic", "single-call", false, Pass),
		r("anthropic.tool-result-first", "MUST", "anthropic", "parallel-same-tool", false, Pass),
		fail,
		stalePass,
		r("openai-chat.tool-call-id-echo", "MUST", "openai-chat", "single-call", false, Pass),
		r("openai-chat.tool-call-id-echo", "MUST", "openai-chat", "single-call", true, Pass),
		warn,
		r("openai-responses.function-call-output-id", "MUST", "openai-responses", "single-call", false, Pass),
		baselined,
		r("gemini.function-response-name", "MUST", "gemini", "single-call", false, Pass),
		errRes,
		ns,
		r("rap.callback-content-type", "MUST", "rap", "single-call", false, Pass),
	}
	return &Run{
		Implementation:  Implementation{Name: "acme-llm-adapter", Version: "1.4.2", URL: "https://example.com/acme", Command: "./acme-shim --verbose"},
		ToolwireVersion: "0.3.0",
		Date:            time.Date(2026, 9, 30, 14, 5, 0, 0, time.UTC),
		Mode:            "driver",
		Dialects:        []string{"openai-chat", "openai-responses", "anthropic", "gemini", "rap"},
		Features:        []string{"parallel-calls", "streaming"},
		Results:         results,
		Duration:        3*time.Second + 250*time.Millisecond,
	}
}

// sampleBaseline lists one real failure, one entry that now passes
// (stale) and one that matches nothing.
func sampleBaseline() []BaselineEntry {
	return []BaselineEntry{
		{Rule: "openai-responses.function-call-output-id", Scenario: "tool-error-result"},
		{Rule: "anthropic.tool-use-id-echo"},
		{Rule: "gemini.removed-rule"},
	}
}

var summaries = map[string]string{
	"anthropic.tool-result-first":              "In the user message answering tool_use blocks, tool_result blocks come first.",
	"anthropic.tool-use-id-echo":               "Each tool_result.tool_use_id echoes the id of a tool_use in the previous assistant message.",
	"openai-chat.tool-call-id-echo":            "Each tool message's tool_call_id answers a tool_call of the preceding assistant message.",
	"openai-chat.parallel-results-order":       "Tool messages follow the order of the assistant's tool_calls.",
	"openai-responses.function-call-output-id": "function_call_output.call_id matches a function_call's call_id.",
	"gemini.function-response-name":            "functionResponse.name equals the functionCall name it answers.",
	"gemini.multimodal-function-response":      "Multimodal function responses carry inline data parts (Gemini 3).",
	"rap.callback-content-type":                "Tool results are POSTed with Content-Type: application/json.",
}

var sources = map[string]string{
	"anthropic.tool-result-first":              "https://docs.anthropic.com/en/docs/build-with-claude/tool-use/implement-tool-use#handling-results-from-client-tools",
	"anthropic.tool-use-id-echo":               "an offline note §3.3",
	"openai-chat.tool-call-id-echo":            "https://platform.openai.com/docs/guides/function-calling",
	"openai-chat.parallel-results-order":       "https://platform.openai.com/docs/guides/function-calling",
	"openai-responses.function-call-output-id": "https://platform.openai.com/docs/guides/function-calling",
	"gemini.function-response-name":            "https://ai.google.dev/gemini-api/docs/function-calling",
	"gemini.multimodal-function-response":      "https://ai.google.dev/gemini-api/docs/function-calling#multimodal",
	"rap.callback-content-type":                "https://infinity.hydro.run/docs/rap/spec/basic/tool-result",
}
