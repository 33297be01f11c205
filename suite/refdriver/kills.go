package refdriver

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/checks"
)

// Expectation is what the suite must report for a break variant — the
// kill matrix, declared next to the breaks: every run against a mock so
// configured, on Scenarios (nil = the kill matrix's representative set),
// fails each rule of Fails (path.Match patterns on rule IDs) at least
// once, and nothing else but MayFail and Collateral. A variant may have
// several (one per mock configuration); a correct variant has one with
// nothing in Fails.
type Expectation struct {
	Break Break
	// StrictRoles runs against a mock with --strict-roles (the historic
	// Anthropic role 400s); GeminiCallIDs against one whose Gemini
	// function calls carry ids.
	StrictRoles, GeminiCallIDs bool
	Scenarios                  []string
	Fails, MayFail             []string
}

// Collateral may fail after any mistake: a driver whose request was
// rejected has no final text, and may not answer the calls that follow.
var Collateral = []string{checks.Every(checks.FinalText), checks.Every(checks.BadCallAnswered), checks.Every(checks.ResultsSent)}

// Expectations lists the kill matrix: what each break variant must fail.
func Expectations() []Expectation {
	chat, resp, anth, gem := conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic, conv.Gemini
	return append(modelExpectations(), []Expectation{
		{Break: SwappedIDs, Fails: []string{checks.ID(chat, checks.MatchesCall), checks.ID(resp, checks.MatchesCall), checks.ID(anth, checks.MatchesCall)}, MayFail: []string{checks.ID(gem, checks.MatchesCall)}},
		{Break: UnansweredCall, Fails: []string{"openai-chat.tool-calls-answered", "openai-responses.tool-output-required", "anthropic.tool-use-answered", "gemini.function-response-count", checks.ID(anth, checks.ResultsSent), checks.ID(gem, checks.ResultsSent)}, MayFail: []string{"gemini.function-call-after-user", "anthropic.role-alternation"}},
		{Break: DropReasoning, Fails: []string{"openai-responses.reasoning-before-call"}},
		{Break: GeminiStringify, Fails: []string{checks.ID(gem, checks.StructuredObject)}},
		// The OpenAI APIs have no error flag: an error's text sent as is
		// still tells the model that the call failed.
		{Break: OmitIsError, Fails: []string{checks.ID(anth, checks.ErrorFlagged), checks.ID(gem, checks.ErrorFlagged)}},
		{Break: ErrorAsNull, Fails: []string{checks.ID(chat, checks.ErrorFlagged), checks.ID(resp, checks.ErrorFlagged), checks.ID(chat, checks.CarriesData), checks.ID(resp, checks.CarriesData)}},
		{Break: ReorderSameName, Fails: []string{checks.ID(gem, checks.MatchesCall), "gemini.function-response-order"}},
		{Break: ReorderSameName, GeminiCallIDs: true, Fails: []string{"gemini.function-response-order-ids"}, MayFail: []string{checks.ID(gem, checks.MatchesCall)}},
		{Break: StripSignature, Fails: []string{"gemini.thought-signature"}},
		{Break: CorruptSignature, Fails: []string{"gemini.thought-signature-issued"}},
		{Break: DuplicateRef, Fails: []string{"gemini.multimodal-response-ref-once"}},
		{Break: ImageInChatTool, Fails: []string{"openai-chat.image-only-in-user-messages"}},
		{Break: TextBeforeToolResult, Fails: []string{"anthropic.tool-result-first"}},
		{Break: AnthropicMessageID, Fails: []string{"anthropic.tool-result-matches-tool-use", "anthropic.tool-use-answered"}},
		{Break: ArgumentsAsObject, Fails: []string{"openai-chat.arguments-string"}},
		{Break: ItemIDForCallID, Fails: []string{"openai-responses.output-needs-call", "openai-responses.tool-output-required"}},
		// The API answers an object output 400 (field-types).
		{Break: OutputAsObject, Fails: []string{"openai-responses.field-types"}},
		{Break: SplitResults, Fails: []string{"anthropic.role-alternation"}},
		{Break: SplitResults, StrictRoles: true, Fails: []string{"anthropic.strict-role-alternation"}},
		{Break: DropAssistantTurn, Fails: []string{"openai-chat.tool-message-follows-call", "anthropic.tool-result-matches-tool-use"}, MayFail: []string{"anthropic.role-alternation"}},
		{Break: Gemini2Multimodal, Fails: []string{"gemini.multimodal-response-model"}},
		{Break: DropData, Fails: []string{checks.Every(checks.CarriesData)}, MayFail: []string{checks.Every(checks.CarriesMedia), checks.ID(gem, checks.StructuredObject)}},
		{Break: CrashOnUnknownTool, Fails: []string{checks.Every(checks.BadCallAnswered), checks.Every(checks.FinalText)}},
		{Break: IgnoreFinalText, Fails: []string{checks.Every(checks.FinalText)}},
		{Break: BadToolName, Fails: []string{"openai-chat.tool-name-pattern", "openai-responses.function-name-pattern", "gemini.function-name-valid"}},
		{Break: InvalidSchema, Fails: []string{"openai-chat.tool-schema-valid", "openai-responses.function-schema-valid"}},
		{Break: UnknownMember, Fails: []string{"openai-chat.known-fields", "openai-responses.known-fields", "anthropic.known-fields", "gemini.known-fields"}},
		{Break: MessageExtraMember, Fails: []string{"openai-chat.message-members"}},
		{Break: ImageNotAnImage, Fails: []string{"openai-chat.image-format"}},
		{Break: WrongMemberType, Fails: []string{"openai-chat.field-types", "openai-responses.field-types", "anthropic.field-types", "gemini.field-types"}},
		{Break: TruncatedBody, Fails: []string{"openai-chat.valid-json", "openai-responses.valid-json", "anthropic.valid-json", "gemini.valid-json"}},
		{Break: ToolControlsWithoutTools, Fails: []string{"openai-chat.tool-controls-need-tools", "anthropic.tool-choice-needs-tools", "gemini.function-calling-config-needs-declarations"}},
		{Break: ForceUndeclaredTool, Fails: []string{"openai-chat.forced-tool-declared", "openai-responses.tool-choice-declared", "anthropic.tool-choice-declared", "gemini.allowed-function-names-declared"}},
		{Break: MaxTokensToReasoningModel, Fails: []string{"openai-chat.reasoning-models-refuse-max-tokens"}},
		{Break: InputAsString, Fails: []string{"anthropic.tool-use-input-object"}},
		{Break: IsErrorString, Fails: []string{"anthropic.tool-result-is-error-boolean"}, MayFail: []string{checks.ID(anth, checks.ErrorFlagged)}},
		{Break: ResponsesArgsObject, Fails: []string{"openai-responses.arguments-string"}},
		{Break: GeminiArgsString, Fails: []string{"gemini.function-call-args-object"}},
		{Break: GeminiResponseStr, Fails: []string{"gemini.function-response-object"}, MayFail: []string{checks.ID(gem, checks.ErrorFlagged), checks.ID(gem, checks.CarriesData), checks.ID(gem, checks.CarriesMedia), checks.ID(gem, checks.StructuredObject)}},
		{Break: GeminiRoleFunction, Fails: []string{"gemini.valid-role"}},
		{Break: UnorderedGeminiResults, Fails: []string{"gemini.function-response-count", "gemini.function-response-after-call"}},

		{Break: ResultsAsUserText, Fails: []string{checks.ID(chat, checks.ResultsSent), checks.ID(resp, checks.ResultsSent), checks.ID(anth, checks.ResultsSent), checks.ID(gem, checks.ResultsSent)}, MayFail: []string{"anthropic.role-alternation"}},
		{Break: OmitModel, Fails: []string{"openai-chat.model-required", "openai-responses.required-fields", "anthropic.required-fields"}},
		{Break: StrictWithLooseSchema, Fails: []string{"openai-chat.strict-schema", "openai-responses.strict-schema"}},
		{Break: ToolNameWithDot, Fails: []string{"openai-chat.tool-name-pattern", "openai-responses.function-name-pattern", "anthropic.tool-name-pattern"}},
		{Break: OmitToolCallType, Fails: []string{"openai-chat.required-fields"}},
		{Break: StreamOptionsWithoutStream, Fails: []string{"openai-chat.stream-options-need-stream"}},
		{Break: EmptyToolCalls, Fails: []string{"openai-chat.tool-calls-non-empty"}},
		{Break: OmitFunctionCallName, Fails: []string{"openai-responses.required-fields"}},
		{Break: AssistantInputText, Fails: []string{"openai-responses.assistant-content-type"}},
		{Break: ToolRoleInResponses, Fails: []string{"openai-responses.message-role"}, MayFail: []string{"openai-responses.tool-output-required"}},
		{Break: PreviousResponseUnknown, Fails: []string{"openai-responses.previous-response-known"}, MayFail: []string{"openai-responses.output-needs-call"}},
		{Break: DropOutputWithPreviousResp, Fails: []string{"openai-responses.tool-output-required"}},
		{Break: ReasoningWithoutFollowingItem, Fails: []string{"openai-responses.reasoning-needs-following-item", "openai-responses.reasoning-before-call"}},
		{Break: OmitMaxTokens, Fails: []string{"anthropic.required-fields"}},
		{Break: DuplicateToolUseIDs, Fails: []string{"anthropic.tool-use-ids-unique"}, MayFail: []string{checks.ID(anth, checks.MatchesCall)}},
		{Break: TextAfterToolUse, Fails: []string{"anthropic.no-content-after-tool-use"}},
		{Break: DropToolUseBlocks, Fails: []string{"anthropic.non-empty-content", "anthropic.tool-result-matches-tool-use"}},
		{Break: MCPContentPassthrough, Fails: []string{"anthropic.tool-result-content-type"}, MayFail: []string{"anthropic.known-fields", checks.ID(anth, checks.CarriesMedia), checks.ID(anth, checks.CarriesData)}},
		{Break: DropFirstUserTurn, Fails: []string{"anthropic.first-message-user", "gemini.function-call-after-user"}},
		{Break: DropFirstUserTurn, StrictRoles: true, Fails: []string{"anthropic.strict-first-message-user", "gemini.function-call-after-user"}},
		{Break: ResponsesInCallTurn, Fails: []string{"gemini.call-turn-not-mixed"}},
		{Break: PromptAsSystemInstruction, Fails: []string{"gemini.contents-required"}},
		{Break: ResponseIDNotEchoed, GeminiCallIDs: true, Fails: []string{"gemini.function-response-id"}},
		{Break: DuplicateDisplayName, Fails: []string{"gemini.multimodal-response-display-name-unique"}, MayFail: []string{"gemini.multimodal-response-ref-resolves"}},
		{Break: FileDataParts, Fails: []string{"gemini.multimodal-response-inline-data"}, MayFail: []string{"gemini.multimodal-response-ref-resolves", checks.ID(gem, checks.CarriesMedia), checks.ID(gem, checks.CarriesData)}},
		{Break: UnsupportedMIME, Fails: []string{"gemini.multimodal-response-mime"}, MayFail: []string{checks.ID(gem, checks.CarriesData)}},
		{Break: DanglingRef, Fails: []string{"gemini.multimodal-response-ref-resolves"}},
		{Break: GeminiRoleTool, Fails: []string{"gemini.valid-role"}},
		{Break: EmptyGeminiPart, Fails: []string{"gemini.part-has-data"}},

		{Break: DropLastCall, Fails: []string{checks.ID(chat, checks.ResultsSent), checks.ID(resp, checks.ResultsSent), checks.ID(anth, checks.ResultsSent), checks.ID(gem, checks.ResultsSent)}},
		{Break: DuplicateResult, Fails: []string{checks.ID(chat, checks.OneResultPerCall), checks.ID(resp, checks.OneResultPerCall), checks.ID(anth, checks.OneResultPerCall), checks.ID(gem, checks.OneResultPerCall)},
			MayFail: []string{"openai-responses.output-needs-call", "gemini.function-response-count", checks.ID(gem, checks.MatchesCall)}},
		{Break: ToolChoiceLost, Scenarios: []string{"forced-tool-choice"}, Fails: []string{checks.Every(checks.ToolChoiceSent)}},
		{Break: StrictLost, Scenarios: []string{"strict-tools"}, Fails: []string{checks.ID(chat, checks.StrictSent), checks.ID(resp, checks.StrictSent), checks.ID(anth, checks.StrictSent)}},
		{Break: DuplicateToolDeclaration, Fails: []string{"anthropic.tool-names-unique"}},
		{Break: EmptyTextBlock, Fails: []string{"anthropic.non-empty-text-block"}},
		{Break: FiveCacheBreakpoints, Fails: []string{"anthropic.cache-control-limit"}},
		{Break: ThinkingBudgetTooSmall, Fails: []string{"anthropic.thinking-budget-minimum"}},
		{Break: ThinkingBudgetAtMax, Fails: []string{"anthropic.thinking-budget-below-max-tokens"}},
		{Break: ThinkingWithForcedTool, Fails: []string{"anthropic.thinking-no-forced-tool-choice"}},
		{Break: ThinkingNotPassedBack, Scenarios: []string{"thinking-pass-back"}, Fails: []string{"anthropic.thinking-block-first"}},
		{Break: ForgedThinkingSignature, Scenarios: []string{"thinking-pass-back"}, Fails: []string{"anthropic.thinking-signature"}},
		{Break: ForgedRedactedThinking, Fails: []string{"anthropic.redacted-thinking-unchanged"}},
		{Break: JSONSchemaAsParameters, Fails: []string{"gemini.parameters-schema-subset"}},
		{Break: BothParameterSchemas, Fails: []string{"gemini.parameters-one-schema"}},
		{Break: RequiredUndefined, Fails: []string{"gemini.schema-required-defined"}},
		{Break: DuplicateItemIDs, Fails: []string{"openai-responses.unique-item-ids"}},
		{Break: UnknownItemReference, Scenarios: []string{"responses-item-references"}, Fails: []string{"openai-responses.item-reference-known"}, MayFail: []string{"openai-responses.output-needs-call"}},
		{Break: UnstoredItemReference, Scenarios: []string{"responses-item-references"}, Fails: []string{"openai-responses.items-persisted"}, MayFail: []string{"openai-responses.output-needs-call"}},
		{Break: KeepForcing, Scenarios: []string{"forced-tool-choice", "forced-choice-reset"}, Fails: []string{checks.Every(checks.ToolChoiceReset)}},
		{Break: ExecuteTruncatedCall, Scenarios: []string{"truncated-call"}, Fails: []string{checks.ID(chat, checks.TruncatedCallRun), checks.ID(resp, checks.TruncatedCallRun), checks.ID(anth, checks.TruncatedCallRun)}},
		{Break: ThinkingNotSent, Scenarios: []string{"thinking-pass-back"}, Fails: []string{checks.ID(anth, checks.ThinkingSent)}},
		{Break: MaxOutputTokensIgnored, Scenarios: []string{"truncated-call"}, Fails: []string{checks.Every(checks.MaxOutputTokensSent)}},
		{Break: ItemReferencesIgnored, Scenarios: []string{"responses-item-references"}, Fails: []string{checks.ID(resp, checks.ItemReferencesSent)}},
		// Correct variants: nothing may fail.
		{Break: BlocksAsJSONOutput},
		{Break: SplitTextAndCalls},
		{Break: CallsReplayedInFull, Scenarios: []string{"responses-item-references"}},
		{Break: LibraryErrorWording},
		{Break: ValidateArguments},
	}...)
}
