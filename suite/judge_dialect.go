package suite

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// judgeDialect is what the scenario judge words and decides per dialect:
// the sources its checks cite, how the API forces a call, cuts a turn,
// flags a tool error and carries media, and the checks only some dialects
// have. One value per dialect (judge_<dialect>.go), as data.
type judgeDialect struct {
	// guide is the API's tool-use guide, the default source.
	guide string
	// forcedChoice is how the dialect forces a call; choiceShape is the
	// tool_choice that forces one named function.
	forcedChoice, choiceShape string
	// truncatedSignal is how the API says the token limit cut a turn, and
	// truncatedSource where it says so ("" = the API drops a cut call:
	// there is nothing to judge).
	truncatedSignal, truncatedSource string
	// errorLevel, errorSummary, errorWhy and errorSource are the
	// error-flagged check's; errorForm is how an error result looks on the
	// wire, errorFix how to send one.
	errorLevel                          rules.Level
	errorSummary, errorWhy, errorSource string
	errorForm, errorFix                 string
	// limitMember is the request member that carries the output token
	// limit (the task's max_output_tokens).
	limitMember string
	// thinking reads a request body's thinking configuration (whether it
	// is on, and its token budget), and thinkingShape words it; nil where
	// the dialect takes no thinking budget the suite asks for.
	thinking      func(body []byte) (on bool, budget int64)
	thinkingShape string
	// matchSummary is the matches-call check's summary.
	matchSummary string
	// mediaInResults: a tool result can carry images and files under
	// model.
	mediaInResults func(model string) bool
	// resultPath finds a call's result in a request body (judge_resultpath.go).
	resultPath func(body []byte, callID, name string) string
	// extraChecks are the dialect's own checks (check, level, feature,
	// summary, source).
	extraChecks []judgeCheck
}

type judgeCheck struct {
	check                 string
	level                 rules.Level
	feature, summary, why string
	source                string
}

// judgeDialects holds every dialect's judge knowledge.
var judgeDialects = map[conv.Dialect]*judgeDialect{
	conv.OpenAIChat:      &judgeOpenAIChat,
	conv.OpenAIResponses: &judgeOpenAIResponses,
	conv.Anthropic:       &judgeAnthropic,
	conv.Gemini:          &judgeGemini,
}

func judgeOf(d conv.Dialect) *judgeDialect { return judgeDialects[d] }

// guide is the dialect's tool-use guide.
func guide(d conv.Dialect) string { return judgeOf(d).guide }

// The OpenAI APIs share the error wording: they have no error flag, so
// an error reaches the model by what the output says, in whatever
// wrapping the library gives it.
const (
	openAIErrorSummary = `A tool error (MCP isError) reaches the model as an error: the API has no error flag, so the output carries the tool's error (its text, or the substance of it, in any wrapping) or says that the call failed`
	openAIErrorWhy     = "data the model needs is lost: with no flag on the wire, the output is the only way the model learns that the call failed and why"
	openAIErrorForm    = `an output that carries the tool's error text, in any wrapping ("Error: …", "An error occurred while …", a JSON {"error": …})`
	openAIErrorFix     = `send the tool's error text as the output, wrapped as the library likes (e.g. "Error: <message>"); never an empty or success-looking output`
	byCallIDSummary    = "Each result references the call it answers (by call id): no result carries another call's data"
	openAIForced       = `tool_choice "required" or a named function`
)

func never(string) bool  { return false }
func always(string) bool { return true }
