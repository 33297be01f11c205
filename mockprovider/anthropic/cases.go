package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// caseTools is the tool every case declares.
const caseTools = `"tools":[{"name":"get_weather","description":"Get current weather for a location.","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`

// body assembles a request around its messages array.
func body(messages string) json.RawMessage {
	return json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,` + caseTools + `,"messages":` + messages + `}`)
}

// Message fragments shared by the cases.
const (
	askWeather = `{"role":"user","content":"What's the weather in Paris?"}`
	callA      = `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Paris"}}`
	callB      = `{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":{"location":"Rome"}}`
	resultA    = `{"type":"tool_result","tool_use_id":"toolu_01A","content":"18C, cloudy"}`
	resultB    = `{"type":"tool_result","tool_use_id":"toolu_01B","content":"24C, sunny"}`
	thanks     = `{"type":"text","text":"Thanks."}`
)

func msgs(parts ...string) string { return "[" + strings.Join(parts, ",") + "]" }

func assistant(blocks ...string) string {
	return `{"role":"assistant","content":[` + strings.Join(blocks, ",") + `]}`
}

func user(blocks ...string) string {
	return `{"role":"user","content":[` + strings.Join(blocks, ",") + `]}`
}

const pairingTail = "Each `tool_use` block must have a corresponding `tool_result` block in the next message."

// RuleCases pairs, for every rule with a check, a request breaking it with
// the same request corrected. Cases for rules with an Option expect the
// server to run with that option (--strict-roles).
func RuleCases() []dialect.RuleCase {
	return append(append(append(append(wireCases(), thinkingCases()...), capabilityCases()...), cacheCase()), []dialect.RuleCase{
		{
			Rule: RuleToolChoiceNeedsTools, Name: "tool_choice any without tools",
			Bad:  json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"any"},"messages":` + msgs(askWeather) + `}`),
			Good: json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"any"},` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
		},
		{
			Rule: RuleToolChoiceDeclared, Name: "tool_choice forces an undeclared tool",
			Bad:  json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"tool","name":"get_forecast"},` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
			Good: json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tool_choice":{"type":"tool","name":"get_weather"},` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
		},
		{
			Rule: RuleRequiredFields, Name: "max_tokens missing",
			Bad:         json.RawMessage(`{"model":"claude-haiku-4-5",` + caseTools + `,"messages":` + msgs(askWeather) + `}`),
			Good:        body(msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "max_tokens: Field required",
		},
		{
			Rule: RuleRequiredFields, Name: "empty messages list",
			Bad:         body(`[]`),
			Good:        body(msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "messages: at least one message is required",
		},
		{
			Rule: RuleFirstMessageUser, Name: "conversation opens with the assistant (accepted, journaled)",
			Bad:  body(msgs(`{"role":"assistant","content":"Hello, how can I help?"}`, askWeather)),
			Good: body(msgs(askWeather)),
		},
		{
			Rule: RuleStrictFirstUser, Name: "conversation opens with the assistant under --strict-roles",
			Bad:         body(msgs(`{"role":"assistant","content":"Hello, how can I help?"}`, askWeather)),
			Good:        body(msgs(askWeather)),
			WantStatus:  400,
			WantMessage: `messages: first message must use the "user" role`,
		},
		{
			Rule: RuleRoleAlternation, Name: "two user messages in a row (merged, journaled)",
			Bad:  body(msgs(askWeather, `{"role":"user","content":"And in Rome?"}`)),
			Good: body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"},{"type":"text","text":"And in Rome?"}]}`)),
		},
		{
			Rule: RuleStrictRoleAlternation, Name: "two user messages in a row under --strict-roles",
			Bad:         body(msgs(askWeather, `{"role":"user","content":"And in Rome?"}`)),
			Good:        body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"},{"type":"text","text":"And in Rome?"}]}`)),
			WantStatus:  400,
			WantMessage: `messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row`,
		},
		{
			Rule: RuleNonEmptyContent, Name: "empty assistant message in the middle",
			Bad:         body(msgs(askWeather, `{"role":"assistant","content":[]}`, `{"role":"user","content":"Hello?"}`)),
			Good:        body(msgs(askWeather, `{"role":"assistant","content":"Let me check."}`, `{"role":"user","content":"Hello?"}`)),
			WantStatus:  400,
			WantMessage: "messages.1: all messages must have non-empty content except for the optional final assistant message",
		},
		{
			Rule: RuleToolUseInputObject, Name: "tool_use.input sent as a JSON string",
			Bad: body(msgs(askWeather,
				assistant(`{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":"{\"location\":\"Paris\"}"}`),
				user(resultA))),
			Good:        body(msgs(askWeather, assistant(callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
		},
		{
			Rule: RuleToolResultContentType, Name: "tool_result content holds a thinking block",
			Bad: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":[{"type":"thinking","thinking":"hmm","signature":"x"}]}`))),
			Good: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":[{"type":"text","text":"18C, cloudy"}]}`))),
			WantStatus:  400,
			WantMessage: "messages.2.content.0.tool_result.content.0: Input tag 'thinking' found using 'type' does not match any of the expected tags: 'browser_state', 'document', 'image', 'search_result', 'text', 'tool_reference'",
		},
		{
			Rule: RuleToolResultIsErrorBool, Name: "is_error sent as a string",
			Bad: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":"city not found","is_error":"true"}`))),
			Good: body(msgs(askWeather, assistant(callA),
				user(`{"type":"tool_result","tool_use_id":"toolu_01A","content":"city not found","is_error":true}`))),
			WantStatus:  400,
			WantMessage: "messages.2.content.0.tool_result.is_error: Input should be a valid boolean",
		},
		{
			Rule: RuleToolUseIDsUnique, Name: "two calls of one turn share an id (reused in the next turn instead: accepted)",
			Bad: body(msgs(askWeather,
				assistant(callA, `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Rome"}}`),
				user(resultA, resultA))),
			Good: body(msgs(askWeather, assistant(callA), user(resultA),
				assistant(`{"type":"text","text":"Now Rome."}`, `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Rome"}}`),
				user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.1: `tool_use` ids must be unique",
		},
		{
			Rule: RuleNoContentAfterToolUse, Name: "text after the tool_use in the assistant turn",
			Bad:         body(msgs(askWeather, assistant(callA, `{"type":"text","text":"Checking now."}`), user(resultA))),
			Good:        body(msgs(askWeather, assistant(`{"type":"text","text":"Checking now."}`, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. " + pairingTail,
		},
		{
			Rule: RuleToolResultFirst, Name: "text before the tool_result in the answering message",
			Bad:         body(msgs(askWeather, assistant(callA), user(thanks, resultA))),
			Good:        body(msgs(askWeather, assistant(callA), user(resultA, thanks))),
			WantStatus:  400,
			WantMessage: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01A. " + pairingTail,
		},
		{
			Rule: RuleToolUseAnswered, Name: "one of two parallel calls left unanswered",
			Bad:         body(msgs(askWeather, assistant(callA, callB), user(resultA))),
			Good:        body(msgs(askWeather, assistant(callA, callB), user(resultA, resultB))),
			WantStatus:  400,
			WantMessage: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_01B. " + pairingTail,
		},
		{
			Rule: RuleToolResultMatches, Name: "tool_result for an id the previous turn never issued",
			Bad:         body(msgs(askWeather, assistant(callA), user(resultA, resultB))),
			Good:        body(msgs(askWeather, assistant(callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01B. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
		},
	}...)
}

// wireCases break the typed wire model: members, types and the body's
// JSON itself.
func wireCases() []dialect.RuleCase {
	return []dialect.RuleCase{
		{
			Rule: RuleValidJSON, Name: "body cut short",
			Bad:         json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"messages":[` + askWeather + `]`),
			Good:        body(msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "The request body is not valid JSON: Expecting value: line 1 column ",
		},
		{
			Rule: RuleKnownFields, Name: "unknown member in a text block",
			Bad:         body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?","foo":1}]}`)),
			Good:        body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"}]}`)),
			WantStatus:  400,
			WantMessage: "messages.0.content.0.text.foo: Extra inputs are not permitted",
		},
		{
			Rule: RuleFieldTypes, Name: "temperature sent as a string",
			Bad:         json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"temperature":"0.5","messages":` + msgs(askWeather) + `}`),
			Good:        json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"temperature":0.5,"messages":` + msgs(askWeather) + `}`),
			WantStatus:  400,
			WantMessage: "temperature: Input should be a valid number",
		},
		{
			Rule: RuleFieldTypes, Name: "a developer role (a system message: accepted)",
			Bad:         body(msgs(`{"role":"developer","content":"Answer in Celsius."}`, askWeather)),
			Good:        body(msgs(`{"role":"system","content":"Answer in Celsius."}`, askWeather)),
			WantStatus:  400,
			WantMessage: "messages.0.role: Input should be 'user', 'assistant' or 'system'",
		},
		{
			Rule: RuleToolNamePattern, Name: "tool name with a dot",
			Bad:         json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"weather.get","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			Good:        json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"weather_get","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			WantStatus:  400,
			WantMessage: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
		},
		{
			Rule: RuleToolNamesUnique, Name: "the same tool declared twice",
			Bad:         json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"get_weather","input_schema":{"type":"object"}},{"name":"get_weather","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			Good:        json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,"tools":[{"name":"get_weather","input_schema":{"type":"object"}},{"name":"get_forecast","input_schema":{"type":"object"}}],"messages":` + msgs(askWeather) + `}`),
			WantStatus:  400,
			WantMessage: "tools: Tool names must be unique.",
		},
		{
			Rule: RuleNonEmptyTextBlock, Name: "an empty text block beside the question",
			Bad:         body(msgs(`{"role":"user","content":[{"type":"text","text":""},{"type":"text","text":"What's the weather in Paris?"}]}`)),
			Good:        body(msgs(`{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"}]}`)),
			WantStatus:  400,
			WantMessage: "messages: text content blocks must be non-empty",
		},
		{
			// simonw/llm-anthropic records claude-haiku-4-5 accepting an
			// assistant turn of " " then tool_use blocks (test_tools.yaml#2).
			Rule: RuleNonEmptyTextBlock, Name: "a whitespace-only assistant turn (beside tool_use blocks: accepted)",
			Bad:         body(msgs(askWeather, assistant(`{"type":"text","text":" "}`), user(thanks))),
			Good:        body(msgs(askWeather, assistant(`{"type":"text","text":" "}`, callA, callB), user(resultA, resultB))),
			WantStatus:  400,
			WantMessage: "messages: text content blocks must contain non-whitespace text",
		},
		{
			Rule: RuleNonEmptyTextBlock, Name: "a whitespace-only question (beside real text: accepted)",
			Bad:         body(msgs(user(`{"type":"text","text":"\n"}`))),
			Good:        body(msgs(user(`{"type":"text","text":"\n"}`, `{"type":"text","text":"What's the weather in Paris?"}`))),
			WantStatus:  400,
			WantMessage: "messages: text content blocks must contain non-whitespace text",
		},
	}
}

// thinkingCases break the extended-thinking rules. A thinking block passed
// back carries a signature this process issued (signed here, as the mock
// signed it in the answer the client received).
func thinkingCases() []dialect.RuleCase {
	const plan = "The user wants the weather in Paris: call get_weather."
	think := func(budget, maxTokens int, extra, messages string) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"model":"claude-sonnet-4-5","max_tokens":%d,"thinking":{"type":"enabled","budget_tokens":%d},%s%s,"messages":%s}`,
			maxTokens, budget, extra, caseTools, messages))
	}
	signed := fmt.Sprintf(`{"type":"thinking","thinking":%q,"signature":%q}`, plan, sign(plan))
	forged := fmt.Sprintf(`{"type":"thinking","thinking":%q,"signature":%q}`, plan, sign(plan+" (edited)"))
	const nonce = "0123456789abcdefghijklmn"
	data := redactedData(nonce)
	redacted := fmt.Sprintf(`{"type":"redacted_thinking","data":%q}`, data)
	changed := fmt.Sprintf(`{"type":"redacted_thinking","data":%q}`, data[:12]+"AAAA"+data[16:])
	return []dialect.RuleCase{
		{
			Rule: RuleThinkingBudgetMinimum, Name: "budget of 512 tokens",
			Bad:         think(512, 4096, "", msgs(askWeather)),
			Good:        think(1024, 4096, "", msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
		},
		{
			Rule: RuleThinkingBudgetBelow, Name: "budget equal to max_tokens",
			Bad:         think(2048, 2048, "", msgs(askWeather)),
			Good:        think(2048, 4096, "", msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at " + thinkingDoc + "#max-tokens-and-context-window-size",
		},
		{
			Rule: RuleThinkingForcedChoice, Name: "thinking with tool_choice any",
			Bad:         think(1024, 4096, `"tool_choice":{"type":"any"},`, msgs(askWeather)),
			Good:        think(1024, 4096, `"tool_choice":{"type":"auto"},`, msgs(askWeather)),
			WantStatus:  400,
			WantMessage: "Thinking may not be enabled when tool_choice forces tool use.",
		},
		{
			Rule: RuleThinkingForcedChoice, Name: "manual thinking with a forced tool (adaptive thinking: accepted)",
			Bad: think(1024, 4096, `"tool_choice":{"type":"tool","name":"get_weather"},`, msgs(askWeather)),
			Good: json.RawMessage(`{"model":"claude-opus-4-7","max_tokens":4096,"thinking":{"type":"adaptive"},"tool_choice":{"type":"tool","name":"get_weather"},` +
				caseTools + `,"messages":` + msgs(askWeather) + `}`),
			WantStatus:  400,
			WantMessage: "Thinking may not be enabled when tool_choice forces tool use.",
		},
		{
			Rule: RuleThinkingSignature, Name: "thinking block passed back with another block's signature",
			Bad:         think(1024, 4096, "", msgs(askWeather, assistant(forged, callA), user(resultA))),
			Good:        think(1024, 4096, "", msgs(askWeather, assistant(signed, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.0: Invalid `signature` in `thinking` block",
		},
		{
			Rule: RuleRedactedThinking, Name: "redacted_thinking passed back with other data",
			Bad:         think(1024, 4096, "", msgs(askWeather, assistant(signed, changed, callA), user(resultA))),
			Good:        think(1024, 4096, "", msgs(askWeather, assistant(signed, redacted, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
		},
		{
			Rule: RuleThinkingBlockFirst, Name: "thinking block dropped from the tool-calling turn",
			Bad:         think(1024, 4096, "", msgs(askWeather, assistant(`{"type":"text","text":"Checking."}`, callA), user(resultA))),
			Good:        think(1024, 4096, "", msgs(askWeather, assistant(signed, `{"type":"text","text":"Checking."}`, callA), user(resultA))),
			WantStatus:  400,
			WantMessage: "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).",
		},
	}
}

// cacheCase marks five blocks for caching: one too many.
func cacheCase() dialect.RuleCase {
	const cc = `,"cache_control":{"type":"ephemeral"}`
	block := func(text string, cached bool) string {
		if cached {
			return `{"type":"text","text":"` + text + `"` + cc + `}`
		}
		return `{"type":"text","text":"` + text + `"}`
	}
	req := func(lastCached bool) json.RawMessage {
		return json.RawMessage(`{"model":"claude-haiku-4-5","max_tokens":1024,` +
			`"system":[` + block("You are a weather assistant.", true) + `,` + block("Answer in one sentence.", true) + `],` +
			`"tools":[{"name":"get_weather","description":"Get current weather for a location.","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}` + cc + `}],` +
			`"messages":[{"role":"user","content":[` + block("Here is the city list: Paris, Rome.", true) + `,` + block("What's the weather in Paris?", lastCached) + `]}]}`)
	}
	return dialect.RuleCase{
		Rule: RuleCacheControlLimit, Name: "five cache_control breakpoints",
		Bad: req(true), Good: req(false),
		WantStatus:  400,
		WantMessage: "A maximum of 4 blocks with cache_control may be provided. Found 5.",
	}
}
