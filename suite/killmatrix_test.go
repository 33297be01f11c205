package suite_test

import (
	"context"
	"path"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
)

// selftestMock is the mock with the built-in scenarios plus the suite's
// own self-test scenarios.
func selftestMock(t testing.TB) mockprovider.Options {
	t.Helper()
	set, err := mockprovider.LoadScenarios("testdata/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	return mockprovider.Options{Scenarios: set}
}

// TestReferenceDriverConformant: the honest reference driver passes every
// rule of every scenario on every dialect, streamed and not.
func TestReferenceDriverConformant(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: suite.Reference(refdriver.None), Parallel: 4, Mock: selftestMock(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	run := h.RunAll(context.Background())
	if len(run.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range run.Results {
		if r.Outcome != reports.Pass {
			t.Errorf("%s %s/%s/%s %s: %s (expected %q, got %q)", r.Outcome, r.Scenario, r.Dialect, reports.StreamMode(r.Stream), r.Rule, r.Message, r.Expected, r.Got)
		}
	}
	if v := run.Verdict(); v != reports.VerdictConformant {
		t.Errorf("verdict %s", v)
	}
}

// killCase says which rules a break variant must fail, and which others
// it may fail as a consequence (a driver whose request was rejected also
// has no final text). Patterns are path.Match globs on rule IDs. A
// variant runs once per case: strictRoles runs it against a mock with
// --strict-roles (the historic Anthropic role 400s), geminiCallIDs
// against one whose Gemini function calls carry ids.
type killCase struct {
	brk           refdriver.Break
	strictRoles   bool
	geminiCallIDs bool
	// scenarios replaces killScenarios for a mistake only some scenarios
	// can show (a forced tool_choice, strict tools).
	scenarios []string
	want      []string
	allow     []string
}

func (kc killCase) name() string {
	n := string(kc.brk)
	if kc.strictRoles {
		n += "/strict-roles"
	}
	if kc.geminiCallIDs {
		n += "/gemini-call-ids"
	}
	return n
}

var collateral = []string{"*.final-text", "*.bad-call-error-result", "*.results-sent"}

var killCases = []killCase{
	{brk: refdriver.SwappedIDs, want: []string{"openai-chat.result-matches-call", "openai-responses.result-matches-call", "anthropic.result-matches-call"}, allow: []string{"gemini.result-matches-call"}},
	{brk: refdriver.UnansweredCall, want: []string{"openai-chat.tool-calls-answered", "openai-responses.tool-output-required", "anthropic.tool-use-answered", "gemini.function-response-count", "anthropic.results-sent", "gemini.results-sent"}, allow: []string{"gemini.function-call-after-user", "anthropic.role-alternation"}},
	{brk: refdriver.DropReasoning, want: []string{"openai-responses.reasoning-before-call"}},
	{brk: refdriver.GeminiStringify, want: []string{"gemini.structured-response-object"}},
	{brk: refdriver.OmitIsError, want: []string{"openai-chat.error-flagged", "openai-responses.error-flagged", "anthropic.error-flagged", "gemini.error-flagged", "openai-chat.bad-call-error-result"}},
	{brk: refdriver.ReorderSameName, want: []string{"gemini.result-matches-call", "gemini.function-response-order"}},
	{brk: refdriver.StripSignature, want: []string{"gemini.thought-signature"}},
	{brk: refdriver.DuplicateRef, want: []string{"gemini.multimodal-response-ref-once"}},
	{brk: refdriver.ImageInChatTool, want: []string{"openai-chat.image-only-in-user-messages"}},
	{brk: refdriver.TextBeforeToolResult, want: []string{"anthropic.tool-result-first"}},
	{brk: refdriver.AnthropicMessageID, want: []string{"anthropic.tool-result-matches-tool-use", "anthropic.tool-use-answered"}},
	{brk: refdriver.ArgumentsAsObject, want: []string{"openai-chat.arguments-string"}},
	{brk: refdriver.ItemIDForCallID, want: []string{"openai-responses.output-needs-call", "openai-responses.tool-output-required"}},
	{brk: refdriver.OutputAsObject, want: []string{"openai-responses.result-carries-data"}, allow: []string{"openai-responses.result-carries-media", "openai-responses.error-flagged"}},
	{brk: refdriver.SplitResults, want: []string{"anthropic.role-alternation"}},
	{brk: refdriver.SplitResults, strictRoles: true, want: []string{"anthropic.strict-role-alternation"}},
	{brk: refdriver.DropAssistantTurn, want: []string{"openai-chat.tool-message-follows-call", "anthropic.tool-result-matches-tool-use"}, allow: []string{"anthropic.role-alternation"}},
	{brk: refdriver.Gemini2Multimodal, want: []string{"gemini.multimodal-response-model"}},
	{brk: refdriver.DropData, want: []string{"*.result-carries-data"}, allow: []string{"*.result-carries-media", "gemini.structured-response-object"}},
	{brk: refdriver.CrashOnUnknownTool, want: []string{"*.bad-call-error-result", "*.final-text"}},
	{brk: refdriver.IgnoreFinalText, want: []string{"*.final-text"}},
	{brk: refdriver.BadToolName, want: []string{"openai-chat.tool-name-pattern", "openai-responses.function-name-pattern", "gemini.function-name-valid"}},
	{brk: refdriver.InvalidSchema, want: []string{"openai-chat.tool-schema-valid", "openai-responses.function-schema-valid"}},
	{brk: refdriver.InputAsString, want: []string{"anthropic.tool-use-input-object"}},
	{brk: refdriver.IsErrorString, want: []string{"anthropic.tool-result-is-error-boolean"}, allow: []string{"anthropic.error-flagged"}},
	{brk: refdriver.ResponsesArgsObject, want: []string{"openai-responses.arguments-string"}},
	{brk: refdriver.GeminiArgsString, want: []string{"gemini.function-call-args-object"}},
	{brk: refdriver.GeminiResponseStr, want: []string{"gemini.function-response-object"}, allow: []string{"gemini.error-flagged", "gemini.result-carries-data", "gemini.result-carries-media", "gemini.structured-response-object"}},
	{brk: refdriver.GeminiRoleFunction, want: []string{"gemini.valid-role"}},
	{brk: refdriver.UnorderedGeminiResults, want: []string{"gemini.function-response-count"}, allow: []string{"gemini.function-response-after-call"}},

	{brk: refdriver.ResultsAsUserText, want: []string{"openai-chat.results-sent", "openai-responses.results-sent", "anthropic.results-sent", "gemini.results-sent"}, allow: []string{"anthropic.role-alternation"}},
	{brk: refdriver.OmitModel, want: []string{"openai-chat.model-required", "openai-responses.required-fields", "anthropic.required-fields"}},
	{brk: refdriver.StrictWithLooseSchema, want: []string{"openai-chat.strict-schema", "openai-responses.strict-schema"}},
	{brk: refdriver.ToolNameWithDot, want: []string{"openai-chat.tool-name-pattern", "openai-responses.function-name-pattern"}},
	{brk: refdriver.OmitToolCallType, want: []string{"openai-chat.required-fields"}},
	{brk: refdriver.StreamOptionsWithoutStream, want: []string{"openai-chat.stream-options-need-stream"}},
	{brk: refdriver.EmptyToolCalls, want: []string{"openai-chat.tool-calls-non-empty"}},
	{brk: refdriver.OmitFunctionCallName, want: []string{"openai-responses.required-fields"}},
	{brk: refdriver.AssistantInputText, want: []string{"openai-responses.assistant-content-type"}},
	{brk: refdriver.ToolRoleInResponses, want: []string{"openai-responses.message-role"}, allow: []string{"openai-responses.tool-output-required"}},
	{brk: refdriver.PreviousResponseUnknown, want: []string{"openai-responses.previous-response-known"}, allow: []string{"openai-responses.output-needs-call"}},
	{brk: refdriver.DropOutputWithPreviousResp, want: []string{"openai-responses.tool-output-required"}},
	{brk: refdriver.ReasoningWithoutFollowingItem, want: []string{"openai-responses.reasoning-needs-following-item", "openai-responses.reasoning-before-call"}},
	{brk: refdriver.OmitMaxTokens, want: []string{"anthropic.required-fields"}},
	{brk: refdriver.DuplicateToolUseIDs, want: []string{"anthropic.tool-use-ids-unique"}},
	{brk: refdriver.TextAfterToolUse, want: []string{"anthropic.no-content-after-tool-use"}},
	{brk: refdriver.DropToolUseBlocks, want: []string{"anthropic.non-empty-content", "anthropic.tool-result-matches-tool-use"}},
	{brk: refdriver.MCPContentPassthrough, want: []string{"anthropic.tool-result-content-type"}, allow: []string{"anthropic.result-carries-media", "anthropic.result-carries-data"}},
	{brk: refdriver.DropFirstUserTurn, want: []string{"anthropic.first-message-user", "gemini.function-call-after-user"}},
	{brk: refdriver.DropFirstUserTurn, strictRoles: true, want: []string{"anthropic.strict-first-message-user", "gemini.function-call-after-user"}},
	{brk: refdriver.ResponsesInCallTurn, want: []string{"gemini.call-turn-not-mixed"}},
	{brk: refdriver.PromptAsSystemInstruction, want: []string{"gemini.contents-required"}},
	{brk: refdriver.ResponseIDNotEchoed, geminiCallIDs: true, want: []string{"gemini.function-response-id"}},
	{brk: refdriver.DuplicateDisplayName, want: []string{"gemini.multimodal-response-display-name-unique"}, allow: []string{"gemini.multimodal-response-ref-resolves"}},
	{brk: refdriver.FileDataParts, want: []string{"gemini.multimodal-response-inline-data"}, allow: []string{"gemini.multimodal-response-ref-resolves", "gemini.result-carries-media", "gemini.result-carries-data"}},
	{brk: refdriver.UnsupportedMIME, want: []string{"gemini.multimodal-response-mime"}, allow: []string{"gemini.result-carries-data"}},
	{brk: refdriver.DanglingRef, want: []string{"gemini.multimodal-response-ref-resolves"}},
	{brk: refdriver.GeminiRoleTool, want: []string{"gemini.valid-role"}},

	{brk: refdriver.DropLastCall, want: []string{"openai-chat.results-sent", "openai-responses.results-sent", "anthropic.results-sent", "gemini.results-sent"}},
	{brk: refdriver.DuplicateResult, want: []string{"openai-chat.one-result-per-call", "openai-responses.one-result-per-call", "anthropic.one-result-per-call", "gemini.one-result-per-call"},
		allow: []string{"openai-responses.output-needs-call", "gemini.function-response-count", "gemini.result-matches-call"}},
	{brk: refdriver.ToolChoiceLost, scenarios: []string{"forced-tool-choice"}, want: []string{"*.tool-choice-sent"}},
	{brk: refdriver.StrictLost, scenarios: []string{"strict-tools"}, want: []string{"openai-chat.strict-sent", "openai-responses.strict-sent", "anthropic.strict-sent"}},
	// A correct variant: nothing may fail.
	{brk: refdriver.BlocksAsJSONOutput},
}

// killScenarios is the representative subset the variants run on.
var killScenarios = []string{"single-call", "parallel-same-tool", "parallel-different-tools", "error-result", "unknown-tool", "malformed-arguments",
	"image-result", "document-results", "structured-content", "reasoning-pass-back", "gemini3-signature-single", "selftest-gemini2-image",
	"text-alongside-call", "multi-turn-chain"}

func matchAny(patterns []string, id string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

// killMock is the self-test mock configured for one kill case.
func killMock(base mockprovider.Options, kc killCase) mockprovider.Options {
	opts := base
	opts.Rules = rules.DefaultOptions()
	opts.Rules.StrictRoles = kc.strictRoles
	if kc.geminiCallIDs {
		opts.Dialects = []dialect.Dialect{openaichat.New(), openairesp.New(), anthropic.New(), &gemini.Dialect{EmitCallIDs: true}}
	}
	return opts
}

// TestReferenceDriverPassesKillMocks: the honest driver passes against
// every mock configuration the kill matrix uses, so a variant's failures
// there come from its mistake, not from the configuration.
func TestReferenceDriverPassesKillMocks(t *testing.T) {
	opts := selftestMock(t)
	for _, kc := range []killCase{{strictRoles: true}, {geminiCallIDs: true}} {
		t.Run(kc.name(), func(t *testing.T) {
			t.Parallel()
			h, err := suite.New(suite.Config{Driver: suite.Reference(refdriver.None), Parallel: 4, Scenarios: killScenarios, Mock: killMock(opts, kc)})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			for _, r := range h.RunAll(context.Background()).Results {
				if r.Outcome != reports.Pass {
					t.Errorf("%s %s/%s/%s %s: %s", r.Outcome, r.Scenario, r.Dialect, reports.StreamMode(r.Stream), r.Rule, r.Message)
				}
			}
		})
	}
}

// TestKillMatrix: every break variant fails the rules it should and no
// others, and every request rule and scenario check of the four provider
// dialects is failed by at least one variant: a rule nobody can fail is a
// rule the suite cannot prove it checks. (RAP rules are failed by the
// reference tool's variants, in the RAP tool matrix.)
func TestKillMatrix(t *testing.T) {
	opts := selftestMock(t)
	var mu sync.Mutex
	failedBy := map[string][]string{}
	cased := map[refdriver.Break]bool{}
	for _, kc := range killCases {
		cased[kc.brk] = true
	}
	for _, info := range refdriver.Breaks() {
		if !cased[info.Name] {
			t.Errorf("break %s has no kill case", info.Name)
		}
	}
	dialectsOf := map[refdriver.Break][]conv.Dialect{}
	for _, info := range refdriver.Breaks() {
		dialectsOf[info.Name] = info.Dialects
	}
	t.Run("variants", func(t *testing.T) {
		for _, kc := range killCases {
			t.Run(kc.name(), func(t *testing.T) {
				t.Parallel()
				scenarios := killScenarios
				if kc.scenarios != nil {
					scenarios = kc.scenarios
				}
				h, err := suite.New(suite.Config{Driver: suite.Reference(kc.brk), Parallel: 4, Dialects: dialectsOf[kc.brk], Scenarios: scenarios,
					Streams: []bool{false}, Mock: killMock(opts, kc)})
				if err != nil {
					t.Fatal(err)
				}
				defer h.Close()
				run := h.RunAll(context.Background())
				failed := map[string][]string{}
				for _, r := range run.Results {
					if r.Outcome == reports.Error {
						t.Errorf("harness error %s/%s %s: %s", r.Scenario, r.Dialect, r.Rule, r.Message)
					}
					if r.Outcome == reports.Fail || r.Outcome == reports.Warn {
						failed[r.Rule] = append(failed[r.Rule], r.Scenario)
						if p, rest, ok := strings.Cut(r.Message, ": "); ok && strings.HasPrefix(rest, p+":") {
							t.Errorf("%s/%s %s: path repeated in %q", r.Scenario, r.Dialect, r.Rule, r.Message)
						}
					}
				}
				mu.Lock()
				for id := range failed {
					failedBy[id] = append(failedBy[id], kc.name())
				}
				mu.Unlock()
				for _, w := range kc.want {
					hit := false
					for id := range failed {
						if ok, _ := path.Match(w, id); ok {
							hit = true
						}
					}
					if !hit {
						t.Errorf("no failure of %s", w)
					}
				}
				for id, scs := range failed {
					if !matchAny(kc.want, id) && !matchAny(kc.allow, id) && !matchAny(collateral, id) {
						t.Errorf("unexpected failure of %s in %v", id, scs)
					}
				}
			})
		}
	})
	h, err := suite.New(suite.Config{Driver: suite.Reference(refdriver.None), Mock: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var unkilled []string
	for _, d := range conv.Dialects {
		for _, r := range h.RulesFor(d) {
			if len(failedBy[r.ID]) == 0 {
				unkilled = append(unkilled, r.ID)
			}
		}
	}
	sort.Strings(unkilled)
	if len(unkilled) > 0 {
		t.Errorf("rules no break variant fails (%d): %s", len(unkilled), strings.Join(unkilled, ", "))
	}
	var rap []string
	for _, r := range h.Mock().Catalog().ForDialect(conv.RAP) {
		rap = append(rap, r.ID)
	}
	t.Logf("%d rap.* rules are covered by the RAP tool matrix (cmd/toolwire-reftool variants), not here: %s", len(rap), strings.Join(rap, ", "))
	if testing.Verbose() {
		ids := make([]string, 0, len(failedBy))
		for id := range failedBy {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			t.Logf("%-52s %s", id, strings.Join(failedBy[id], ", "))
		}
	}
}
