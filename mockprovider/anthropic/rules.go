package anthropic

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Rule IDs of the dialect.
const (
	RuleRequiredFields        = "anthropic.required-fields"
	RuleFirstMessageUser      = "anthropic.first-message-user"
	RuleStrictFirstUser       = "anthropic.strict-first-message-user"
	RuleRoleAlternation       = "anthropic.role-alternation"
	RuleStrictRoleAlternation = "anthropic.strict-role-alternation"
	RuleNonEmptyContent       = "anthropic.non-empty-content"
	RuleToolUseInputObject    = "anthropic.tool-use-input-object"
	RuleToolResultContentType = "anthropic.tool-result-content-type"
	RuleToolResultIsErrorBool = "anthropic.tool-result-is-error-boolean"
	RuleToolUseIDsUnique      = "anthropic.tool-use-ids-unique"
	RuleToolUseAnswered       = "anthropic.tool-use-answered"
	RuleToolResultFirst       = "anthropic.tool-result-first"
	RuleNoContentAfterToolUse = "anthropic.no-content-after-tool-use"
	RuleToolResultMatches     = "anthropic.tool-result-matches-tool-use"
	RuleKnownFields           = "anthropic.known-fields"
	RuleFieldTypes            = "anthropic.field-types"
	RuleValidJSON             = "anthropic.valid-json"
	RuleToolNamePattern       = "anthropic.tool-name-pattern"
	RuleToolNamesUnique       = "anthropic.tool-names-unique"
	RuleNonEmptyTextBlock     = "anthropic.non-empty-text-block"
	RuleThinkingBudgetMinimum = "anthropic.thinking-budget-minimum"
	RuleThinkingBudgetBelow   = "anthropic.thinking-budget-below-max-tokens"
	RuleThinkingForcedChoice  = "anthropic.thinking-no-forced-tool-choice"
	RuleThinkingBlockFirst    = "anthropic.thinking-block-first"
	RuleThinkingSignature     = "anthropic.thinking-signature"
	RuleRedactedThinking      = "anthropic.redacted-thinking-unchanged"
	RuleCacheControlLimit     = "anthropic.cache-control-limit"
	RuleToolChoiceNeedsTools  = "anthropic.tool-choice-needs-tools"
	RuleToolChoiceDeclared    = "anthropic.tool-choice-declared"
)

// thinkingDoc is the link the API's thinking errors end with.
const thinkingDoc = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

const (
	refDoc = "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
)

// Rules returns the catalog entries (built once: the server asks on every
// request).
func (d *Dialect) Rules() []rules.Rule { return d.rules }

// catalog lists the rules in the order the API reports them when two
// breaches sit at the same message (request-level first, then block shapes,
// then tool pairing).
func catalog() []rules.Rule {
	r := func(id string, level rules.Level, summary, source string, check rules.CheckFunc) rules.Rule {
		return rules.Rule{ID: id, Dialect: conv.Anthropic, Level: level, Summary: summary, Source: source, Check: check}
	}
	set := []rules.Rule{
		r(RuleValidJSON, rules.MUST,
			"The body must be JSON in UTF-8.",
			"https://platform.claude.com/docs/en/api/errors (invalid_request_error); syntax text [I] in the form pasted from API answers (\"The request body is not valid JSON: … line L column C (char O)\"); the invalid UTF-8 wording [I] (Python's codec message)",
			nil),
		r(RuleKnownFields, rules.MUST,
			"Every member must be one the API defines: unknown members get pydantic's \"Extra inputs are not permitted\" at their dotted path (journaled instead under --lenient).",
			"https://github.com/anthropics/claude-code/issues/14135 (\"context_management: Extra inputs are not permitted\"); https://github.com/anthropics/claude-code/issues/4378 (\"messages.65.content.1.tool_use.text: Extra inputs are not permitted\")",
			checkKnownFields),
		r(RuleFieldTypes, rules.MUST,
			"Every member must have its type: wrong JSON kinds, fractions for integers, numbers out of range, unknown union tags and duplicate members are 400s at the dotted path.",
			"https://github.com/anthropics/anthropic-sdk-go/blob/v1.84.0/message.go (param types); https://github.com/themaximalist/llm.js/issues/30 and https://github.com/jedisct1/openapi-mcp/issues/9 (the body is validated by pydantic, whose errors the API passes through) [V]; texts [I]: pydantic wording (\"Input should be a valid string\", \"Input tag 'x' found using 'type' does not match any of the expected tags\"); testdata/corpus/datadog-dd-trace-py.jsonl (a message that is not an object, anthropic_completion_error.yaml#1: \"messages.0: Input does not match the expected shape.\") [V]; duplicate members [I]",
			nil),
		r(RuleRequiredFields, rules.MUST,
			"model, max_tokens and a non-empty messages list are required, and so are each block's own required members.",
			"https://platform.claude.com/docs/en/api/messages (required body parameters); texts [I]: pydantic \"Field required\" as seen in \"max_tokens: Field required\", and \"at least one message is required\" as matched by client code",
			checkRequired),
		r(RuleToolNamePattern, rules.MUST,
			"Tool names must match ^[a-zA-Z0-9_-]{1,128}$.",
			"https://github.com/jedisct1/openapi-mcp/issues/9 and https://github.com/modelcontextprotocol/modelcontextprotocol/issues/1345 (\"tools.73.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'\")",
			checkToolNamePattern),
		r(RuleToolNamesUnique, rules.MUST,
			"Tool names must be unique within a request.",
			"https://github.com/anthropics/claude-code/issues/10687 (\"tools: Tool names must be unique.\")",
			checkToolNamesUnique),
		r(RuleNonEmptyTextBlock, rules.MUST,
			"Text content blocks must be non-empty; a whitespace-only text block is refused when its message has nothing else (no other text, no tool_use or other block).",
			"https://github.com/anthropics/claude-code/issues/53473 (\"messages: text content blocks must be non-empty\"); https://github.com/anthropics/claude-code/issues/23440 (\"messages: text content blocks must contain non-whitespace text\"); https://github.com/LibreChat-AI/agents/pull/124 and https://github.com/experientiallabs/experiential/pull/804 (API probes: [text:' '] alone refused, [text:' ', text:'real'] and assistant [text:'\\n\\n', tool_use] accepted, [text:''] refused anywhere) [V]; testdata/corpus/simonw-llm-anthropic.jsonl (test_tools.yaml#2: assistant [text:' ', tool_use, tool_use] accepted) [V]; whitespace beside other non-text blocks accepted [I]",
			checkNonEmptyTextBlock),
		r(RuleThinkingBudgetMinimum, rules.MUST,
			"thinking.budget_tokens must be at least 1024.",
			"https://github.com/themaximalist/llm.js/issues/30 (\"thinking.enabled.budget_tokens: Input should be greater than or equal to 1024\")",
			checkThinkingMinimum),
		r(RuleThinkingBudgetBelow, rules.MUST,
			"max_tokens must be greater than thinking.budget_tokens (except under the interleaved-thinking beta).",
			"https://github.com/liuw1535/antigravity2api-nodejs/issues/149 (\"`max_tokens` must be greater than `thinking.budget_tokens`. …\"); https://platform.claude.com/docs/en/build-with-claude/extended-thinking (interleaved thinking lets the budget exceed max_tokens)",
			checkThinkingBelowMax),
		r(RuleThinkingForcedChoice, rules.MUST,
			"Manual extended thinking (type enabled) cannot be combined with a tool_choice that forces tool use (any, tool); adaptive thinking can.",
			"https://github.com/mastra-ai/mastra/issues/7507 (\"Thinking may not be enabled when tool_choice forces tool use.\"); https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows (options that force tool use return an error with manual extended thinking, adaptive thinking supports forced tool use)",
			checkThinkingForcedChoice),
		r(RuleThinkingSignature, rules.MUST,
			"A thinking block passed back must carry the signature it was issued with, for its exact text.",
			"https://github.com/ding113/claude-code-hub/issues/518 (\"messages.1.content.0: Invalid `signature` in `thinking` block\")",
			checkThinkingSignature),
		r(RuleRedactedThinking, rules.MUST,
			"A redacted_thinking block in the latest assistant message must come back with its data exactly as issued.",
			"https://github.com/anthropics/claude-code/issues/25361 (\"messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.\"); https://platform.claude.com/docs/en/build-with-claude/extended-thinking#redacted-thinking-blocks (pass them back unchanged); that changed data is answered so [I]",
			checkRedactedThinking),
		r(RuleThinkingBlockFirst, rules.MUST,
			"With thinking on, the assistant turn whose tool calls the request answers must open with its thinking block (its first message since the last user message that is not only tool results).",
			"https://github.com/lbjlaq/Antigravity-Manager/issues/139 (\"messages.129.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is enabled, a final `assistant` message must start with a thinking block …\"); https://github.com/dust-tt/srchd/pull/41 (one opening block suffices for a long loop)",
			checkThinkingFirst),
		r(RuleToolChoiceNeedsTools, rules.SHOULD,
			"tool_choice (auto, any or tool) should come with a tools list (journaled: no public source shows the API refusing one without).",
			"https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use (tool_choice chooses among the tools provided); a refusal not seen, text [I] in the API's style",
			checkToolChoiceNeedsTools),
		r(RuleToolChoiceDeclared, rules.SHOULD,
			"A tool_choice of type tool should name a declared tool (journaled: no public source shows the API refusing an undeclared one).",
			"https://platform.claude.com/docs/en/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use (tool: force one specific tool of the list); a refusal not seen, text [I] in the API's style",
			checkToolChoiceDeclared),
		r(RuleCacheControlLimit, rules.MUST,
			"At most 4 blocks may carry cache_control (tools, system, messages and the automatic breakpoint together).",
			"https://github.com/tghamm/Anthropic.SDK/issues/50 (\"A maximum of 4 blocks with cache_control may be provided. Found 5.\")",
			checkCacheControlLimit),
		r(RuleFirstMessageUser, rules.SHOULD,
			"The first message should use the user role (the API now accepts an assistant first; journaled only).",
			"https://github.com/anthropics/anthropic-sdk-go/blob/v1.84.0/message.go (MessageParam: consecutive same-role turns are combined, so the old first-message text is no longer enforced)",
			checkFirstUser(false)),
		r(RuleStrictFirstUser, rules.MUST,
			"With --strict-roles, a first message not from the user gets the historic 400.",
			"https://github.com/lobehub/lobe-chat/issues/1496; https://github.com/microsoft/autogen/issues/2884",
			checkFirstUser(true)),
		r(RuleRoleAlternation, rules.SHOULD,
			"Roles should alternate; the API merges consecutive same-role messages (journaled only).",
			"https://github.com/anthropics/anthropic-sdk-go/blob/v1.84.0/message.go (MessageParam doc comment)",
			checkAlternation(false)),
		r(RuleStrictRoleAlternation, rules.MUST,
			"With --strict-roles, consecutive same-role messages get the historic 400.",
			"https://github.com/etkecc/baibot/issues/13; https://github.com/lobehub/lobe-chat/issues/1496",
			checkAlternation(true)),
		r(RuleNonEmptyContent, rules.MUST,
			"Every message needs non-empty content, except an optional final assistant message (a system message may carry only output_config).",
			"https://docs.claude.com/en/api/messages; https://github.com/anthropics/claude-code/issues/2663 (\"messages.5: all messages must have non-empty content except for the optional final assistant message\")",
			checkNonEmpty),
		r(RuleToolUseInputObject, rules.MUST,
			"tool_use.input must be a JSON object.",
			"https://docs.claude.com/en/api/messages (tool_use.input: object)",
			checkInputObject),
		r(RuleToolResultContentType, rules.MUST,
			"tool_result content blocks must be text, image, document, search_result, tool_reference or browser_state.",
			"https://docs.claude.com/en/api/messages (tool_result content)",
			checkResultContentType),
		r(RuleToolResultIsErrorBool, rules.MUST,
			"tool_result.is_error must be a boolean.",
			"https://docs.claude.com/en/api/messages (tool_result.is_error: boolean); message text [I] (pydantic bool_type wording)",
			checkIsErrorBool),
		r(RuleToolUseIDsUnique, rules.MUST,
			"tool_use ids must be unique within an assistant turn; an id may come back in a later turn once its call was answered.",
			"https://github.com/trycua/cua/issues/524 and https://github.com/anthropics/claude-code/issues/20901 (\"messages.1.content.1: `tool_use` ids must be unique\": a duplicate within one message); reuse across turns accepted [I] (every quoted report points inside one message)",
			checkUniqueIDs),
		r(RuleNoContentAfterToolUse, rules.MUST,
			"No text or other content may follow a tool_use block in the same assistant turn.",
			refDoc+" (tool_use ends the assistant turn)",
			checkPairing(pairTextAfter)),
		r(RuleToolResultFirst, rules.MUST,
			"In the user message answering tool calls, tool_result blocks must come first.",
			refDoc+` ("the tool_result blocks must come FIRST in the content array")`,
			checkPairing(pairNotFirst)),
		r(RuleToolUseAnswered, rules.MUST,
			"Every tool_use must be answered by a tool_result in the next message.",
			refDoc+` ("Tool result blocks must immediately follow their corresponding tool use blocks")`,
			checkPairing(pairMissing)),
		r(RuleToolResultMatches, rules.MUST,
			"Every tool_result must answer a tool_use of the previous message.",
			refDoc+" (tool_use_id matches a tool_use of the previous turn)",
			checkResultMatches),
	}
	for i := range set {
		switch set[i].ID {
		case RuleStrictFirstUser, RuleStrictRoleAlternation:
			set[i].Option = "--strict-roles"
		}
	}
	return set
}

func checkThinkingMinimum(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.ThinkingBudget == nil || *r.ThinkingBudget >= 1024 {
		return nil
	}
	return []rules.Violation{bad(-1, "thinking.enabled.budget_tokens", "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")}
}

func checkThinkingBelowMax(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.ThinkingBudget == nil || !r.HasMaxTokens || r.Interleaved || r.MaxTokens > *r.ThinkingBudget {
		return nil
	}
	return []rules.Violation{bad(-1, "max_tokens", "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "+thinkingDoc+"#max-tokens-and-context-window-size")}
}

func checkThinkingForcedChoice(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || !r.Thinking || r.AdaptiveThinking || (r.ToolChoice.Mode != conv.ToolChoiceRequired && r.ToolChoice.Mode != conv.ToolChoiceFunction) {
		return nil
	}
	return []rules.Violation{bad(-1, "tool_choice", "Thinking may not be enabled when tool_choice forces tool use.")}
}

// checkThinkingSignature verifies every thinking block passed back when
// thinking is on (the blocks the model then reads).
func checkThinkingSignature(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || !r.Thinking {
		return nil
	}
	var out []rules.Violation
	r.blocks(func(b *Block) {
		if b.Type == "thinking" && !validSignature(b.Text, b.Signature) {
			p := blockPath(b)
			out = append(out, bad(b.Msg, p, p+": Invalid `signature` in `thinking` block"))
		}
	})
	return out
}

// checkRedactedThinking verifies the data of the redacted_thinking blocks
// of the latest assistant message (the blocks the API reads back), when
// thinking is on.
func checkRedactedThinking(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || !r.Thinking {
		return nil
	}
	for i := len(r.Groups) - 1; i >= 0; i-- {
		if r.Groups[i].Role != "assistant" {
			continue
		}
		var out []rules.Violation
		for k := range r.Groups[i].Blocks {
			if b := &r.Groups[i].Blocks[k]; b.Type == "redacted_thinking" && !validRedactedData(b.Signature) {
				p := blockPath(b)
				out = append(out, bad(b.Msg, p, p+": `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. "+
					"These blocks must remain as they were in the original response."))
			}
		}
		return out
	}
	return nil
}

// checkThinkingFirst: when the request answers tool calls with thinking
// on, the assistant turn that made them must open with its thinking. The
// turn is every message since the last user message that is not only tool
// results: without the interleaved-thinking beta the model thinks once, at
// the start, and the later steps of the loop carry no thinking block — the
// API accepts a long loop opened by one (https://github.com/dust-tt/srchd/pull/41).
func checkThinkingFirst(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || !r.Thinking || len(r.Groups) < 2 {
		return nil
	}
	last := r.Groups[len(r.Groups)-1]
	if last.Role != "user" || !hasType(last.Blocks, "tool_result") {
		return nil
	}
	opening := -1
	for i := len(r.Groups) - 2; i >= 0; i-- {
		g := r.Groups[i]
		if g.Role == "user" && !onlyToolResults(g.Blocks) {
			break
		}
		if g.Role == "assistant" {
			opening = i
		}
	}
	if opening < 0 {
		return nil
	}
	g := r.Groups[opening]
	if !hasType(g.Blocks, "tool_use") || len(g.Blocks) == 0 {
		return nil
	}
	first := g.Blocks[0]
	if first.Type == "thinking" || first.Type == "redacted_thinking" {
		return nil
	}
	p := blockPath(&first) + ".type"
	return []rules.Violation{bad(first.Msg, p, p+": Expected `thinking` or `redacted_thinking`, but found `"+first.Type+"`. "+
		"When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). "+
		"We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at "+thinkingDoc)}
}

// onlyToolResults reports whether a user message answers calls and says
// nothing else (it continues the assistant's turn).
func onlyToolResults(blocks []Block) bool {
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return len(blocks) > 0
}

func hasType(blocks []Block, typ string) bool {
	for _, b := range blocks {
		if b.Type == typ {
			return true
		}
	}
	return false
}

func checkToolChoiceNeedsTools(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.ToolChoiceType == "" || r.ToolChoiceType == "none" || len(r.ToolNames) > 0 {
		return nil
	}
	return []rules.Violation{bad(-1, "tool_choice", "tool_choice: tool_choice may only be specified while providing tools.")}
}

func checkToolChoiceDeclared(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.ToolChoiceType != "tool" || len(r.ToolNames) == 0 || contains(r.ToolNames, r.ToolChoice.Name) {
		return nil
	}
	return []rules.Violation{bad(-1, "tool_choice.tool.name", "tool_choice.tool.name: Tool '"+r.ToolChoice.Name+"' not found in the provided tools.")}
}

func checkCacheControlLimit(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil || r.CacheBreakpoints <= 4 {
		return nil
	}
	return []rules.Violation{bad(-1, "", fmt.Sprintf("A maximum of 4 blocks with cache_control may be provided. Found %d.", r.CacheBreakpoints))}
}

// checkKnownFields journals, under --lenient, the members decoding would
// otherwise have answered (strict decoding never gets this far).
func checkKnownFields(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, p := range r.Unknown {
		out = append(out, bad(-1, p, p+": "+notAllowed))
	}
	return out
}

// validToolName is ^[a-zA-Z0-9_-]{1,128}$ without regexp.
func validToolName(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func checkToolNamePattern(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for i, t := range r.Tools {
		if !validToolName(t.Name) {
			p := fmt.Sprintf("tools.%d.custom.name", r.customIndex[i])
			out = append(out, bad(-1, p, p+": String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"))
		}
	}
	return out
}

func checkToolNamesUnique(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	for i, n := range r.ToolNames {
		if n != "" && slices.Contains(r.ToolNames[:i], n) {
			return []rules.Violation{bad(-1, "tools", "tools: Tool names must be unique.")}
		}
	}
	return nil
}

// checkNonEmptyTextBlock: an empty text block is refused wherever it sits
// except in a final assistant message (a prefill); a whitespace-only text
// block only when nothing else in its message has content (no other text,
// no tool_use, no tool_result…): the API accepts " " beside real text or
// beside tool_use blocks.
func checkNonEmptyTextBlock(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	for i, m := range r.Messages {
		if i == len(r.Messages)-1 && m.Role == "assistant" {
			continue
		}
		blank, substance := false, false
		for _, b := range m.Blocks {
			switch {
			case b.Type != "text":
				substance = true
			case b.Text == "":
				return []rules.Violation{bad(i, "messages", "messages: text content blocks must be non-empty")}
			case strings.TrimSpace(b.Text) == "":
				blank = true
			default:
				substance = true
			}
		}
		if blank && !substance {
			return []rules.Violation{bad(i, "messages", "messages: text content blocks must contain non-whitespace text")}
		}
	}
	return nil
}

// bad is a 400 invalid_request_error violation at a message index.
func bad(order int, path, msg string) rules.Violation {
	return rules.Violation{Path: path, Message: msg, Status: http.StatusBadRequest, ErrType: errInvalidRequest, Order: order}
}

func asRequest(req any) *Request {
	r, _ := req.(*Request)
	return r
}

func checkRequired(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for _, f := range []struct {
		name string
		ok   bool
	}{{"model", r.HasModel}, {"max_tokens", r.HasMaxTokens || r.CountTokens}, {"messages", r.HasMessages}} {
		if !f.ok {
			out = append(out, bad(-1, f.name, f.name+": "+required))
		}
	}
	if r.HasMessages && len(r.Messages) == 0 {
		out = append(out, bad(-1, "messages", "messages: at least one message is required"))
	}
	return out
}

// checkFirstUser: strict reports only under --strict-roles, the SHOULD
// form only without it, so a breach is journaled once either way.
func checkFirstUser(strict bool) rules.CheckFunc {
	return func(req any, env *rules.Env) []rules.Violation {
		r := asRequest(req)
		if r == nil || strictRoles(env) != strict {
			return nil
		}
		// System messages are instructions, not turns.
		first := slices.IndexFunc(r.Messages, func(m Message) bool { return m.Role != "system" })
		if first < 0 || r.Messages[first].Role == "user" {
			return nil
		}
		p := fmt.Sprintf("messages.%d.role", first)
		return []rules.Violation{bad(first, p, `messages: first message must use the "user" role`)}
	}
}

func checkAlternation(strict bool) rules.CheckFunc {
	return func(req any, env *rules.Env) []rules.Violation {
		r := asRequest(req)
		if r == nil || strictRoles(env) != strict {
			return nil
		}
		var out []rules.Violation
		previous := ""
		for i, m := range r.Messages {
			if m.Role == "system" {
				continue // instructions between turns
			}
			if m.Role == previous {
				out = append(out, bad(i, fmt.Sprintf("messages.%d.role", i),
					fmt.Sprintf(`messages: roles must alternate between "user" and "assistant", but found multiple %q roles in a row`, m.Role)))
			}
			previous = m.Role
		}
		return out
	}
}

func strictRoles(env *rules.Env) bool { return env != nil && env.Options.StrictRoles }

func checkNonEmpty(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for i, m := range r.Messages {
		if m.Empty && !(i == len(r.Messages)-1 && m.Role == "assistant") {
			p := fmt.Sprintf("messages.%d", i)
			out = append(out, bad(i, p, p+": all messages must have non-empty content except for the optional final assistant message"))
		}
	}
	return out
}

// blocks visits every content block as sent.
func (r *Request) blocks(visit func(b *Block)) {
	for i := range r.Messages {
		for j := range r.Messages[i].Blocks {
			visit(&r.Messages[i].Blocks[j])
		}
	}
}

func blockPath(b *Block) string { return fmt.Sprintf("messages.%d.content.%d", b.Msg, b.Index) }

func checkInputObject(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	r.blocks(func(b *Block) {
		if b.Type == "tool_use" && !isObject(b.Input) {
			p := blockPath(b) + ".tool_use.input"
			out = append(out, bad(b.Msg, p, p+": Input should be a valid dictionary"))
		}
	})
	return out
}

// resultTags are the block types a tool_result may contain (generated
// from the SDK's union).
var resultTags = wToolResultBlockContentUnionTags

func checkResultContentType(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	r.blocks(func(b *Block) {
		if b.Type != "tool_result" {
			return
		}
		for k, it := range b.ResultItems {
			p := fmt.Sprintf("%s.tool_result.content.%d", blockPath(b), k)
			switch {
			case !it.HasTag:
				out = append(out, bad(b.Msg, p, p+": Unable to extract tag using discriminator 'type'"))
			case !contains(resultTags, it.Type):
				out = append(out, bad(b.Msg, p, tagError(p, it.Type, resultTags)))
			}
		}
	})
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func checkIsErrorBool(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	r.blocks(func(b *Block) {
		if b.Type != "tool_result" || b.IsError == nil {
			return
		}
		switch strings.TrimSpace(string(b.IsError)) {
		case "true", "false", "null":
			return
		}
		p := blockPath(b) + ".tool_result.is_error"
		out = append(out, bad(b.Msg, p, p+": Input should be a valid boolean"))
	})
	return out
}

// checkUniqueIDs: the ids of one assistant turn must differ. An id may
// come back in a later turn once its first call was answered: the API
// reports duplicates at a block of one message (messages.1.content.1 in
// every report quoted in the rule's source), and agents that number their
// calls per turn reuse ids across turns.
func checkUniqueIDs(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	var stack [16]string
	for _, g := range r.Groups {
		if g.Role != "assistant" {
			continue
		}
		seen := stack[:0] // the ids of the turn so far: a turn carries few
		for k := range g.Blocks {
			b := &g.Blocks[k]
			if b.Type != "tool_use" {
				continue
			}
			if slices.Contains(seen, b.ID) {
				p := blockPath(b)
				out = append(out, bad(b.Msg, p, p+": `tool_use` ids must be unique"))
			}
			seen = append(seen, b.ID)
		}
	}
	return out
}

// pairReason says why tool_use ids lack results "immediately after"; the
// API answers all three with one message, the rules split them by cause.
type pairReason int

const (
	pairTextAfter pairReason = iota // content after a tool_use in its turn
	pairNotFirst                    // the result exists but something precedes it
	pairMissing                     // no result in the next message (or no next message of the user)
)

// pairing finds, for each assistant turn with tool_use blocks followed by
// another turn, the ids not answered by the leading tool_result blocks of
// that next turn. One finding per turn, with the dominant cause.
func pairing(r *Request) []pairFinding {
	var out []pairFinding
	for gi, g := range r.Groups {
		if g.Role != "assistant" || gi+1 >= len(r.Groups) {
			continue // a final assistant turn is a prefill: nothing to answer yet
		}
		if !hasType(g.Blocks, "tool_use") {
			continue
		}
		next := r.Groups[gi+1]
		// The results before the first other block of the next turn.
		lead := len(next.Blocks)
		for k, b := range next.Blocks {
			if b.Type != "tool_result" {
				lead = k
				break
			}
		}
		f := pairFinding{msg: next.First, reason: pairMissing}
		notFirst := false
		for _, b := range g.Blocks {
			if b.Type != "tool_use" {
				continue
			}
			id := b.ID
			textAfter := textAfterCall(g.Blocks, id)
			if textAfter || !answers(next.Blocks[:lead], id) {
				f.ids = append(f.ids, id)
				notFirst = notFirst || answers(next.Blocks, id)
				if textAfter {
					f.reason = pairTextAfter
				}
			}
		}
		if len(f.ids) == 0 {
			continue
		}
		if f.reason != pairTextAfter && notFirst {
			f.reason = pairNotFirst
		}
		out = append(out, f)
	}
	return out
}

// textAfterCall reports whether a tool_use with id is followed in its
// turn by a block other than tool blocks.
func textAfterCall(blocks []Block, id string) bool {
	for k, b := range blocks {
		if b.Type != "tool_use" || b.ID != id {
			continue
		}
		for _, later := range blocks[k+1:] {
			if !isToolBlock(later.Type) {
				return true
			}
		}
	}
	return false
}

// answers reports whether blocks hold a tool_result for id.
func answers(blocks []Block, id string) bool {
	for _, b := range blocks {
		if b.Type == "tool_result" && b.ToolUseID == id {
			return true
		}
	}
	return false
}

type pairFinding struct {
	msg    int
	ids    []string
	reason pairReason
}

// isToolBlock: blocks that may follow a tool_use in its turn (more calls,
// server tool calls and their results).
func isToolBlock(t string) bool {
	return t == "tool_use" || t == "server_tool_use" || t == "mcp_tool_use" || strings.HasSuffix(t, "_tool_result")
}

func checkPairing(reason pairReason) rules.CheckFunc {
	return func(req any, _ *rules.Env) []rules.Violation {
		r := asRequest(req)
		if r == nil {
			return nil
		}
		var out []rules.Violation
		for _, f := range pairing(r) {
			if f.reason != reason {
				continue
			}
			p := fmt.Sprintf("messages.%d", f.msg)
			out = append(out, bad(f.msg, p, fmt.Sprintf("%s: `tool_use` ids were found without `tool_result` blocks immediately after: %s. "+
				"Each `tool_use` block must have a corresponding `tool_result` block in the next message.", p, strings.Join(f.ids, ", "))))
		}
		return out
	}
}

// issues reports whether blocks hold a tool_use with id.
func issues(blocks []Block, id string) bool {
	for _, b := range blocks {
		if b.Type == "tool_use" && b.ID == id {
			return true
		}
	}
	return false
}

// checkResultMatches: a tool_result must reference a tool_use of the turn
// right before its own; the path is the first stray block, the message
// lists every stray id of the turn.
func checkResultMatches(req any, _ *rules.Env) []rules.Violation {
	r := asRequest(req)
	if r == nil {
		return nil
	}
	var out []rules.Violation
	for gi, g := range r.Groups {
		if g.Role != "user" {
			continue
		}
		var previous []Block
		if gi > 0 {
			previous = r.Groups[gi-1].Blocks
		}
		var first *Block
		var stray []string
		for k := range g.Blocks {
			b := &g.Blocks[k]
			if b.Type == "tool_result" && !issues(previous, b.ToolUseID) {
				if first == nil {
					first = b
				}
				stray = append(stray, b.ToolUseID)
			}
		}
		if first != nil {
			p := blockPath(first)
			out = append(out, bad(first.Msg, p, fmt.Sprintf("%s: unexpected `tool_use_id` found in `tool_result` blocks: %s. "+
				"Each `tool_result` block must have a corresponding `tool_use` block in the previous message.", p, strings.Join(stray, ", "))))
		}
	}
	return out
}
