package dialect

import (
	"encoding/json"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Judged is implemented by the dialects the conformance suite judges:
// what its scenario judge and its format mode know of the dialect, kept
// in the dialect's own directory (judge.go, format.go, resultpath.go).
type Judged interface {
	Judge() *Judge
	Format() Format
}

// Judge is what the scenario judge words and decides per dialect: the
// sources its checks cite, how the API forces a call, cuts a turn, flags
// a tool error and carries media, and the checks only some dialects have.
type Judge struct {
	// OptIn: a driver is run on the dialect only when it names it
	// (--dialects), so a driver written before the dialect existed keeps
	// its verdict.
	OptIn bool
	// DefaultModel is the model a task runs under when its scenario names
	// none.
	DefaultModel string
	// DriverEnv is what the driver contract tells a driver of this API:
	// the variables its official SDKs read for the base URL and the key,
	// given the mock's URL and the session's key.
	DriverEnv func(serverURL, key string) map[string]string
	// Guide is the API's tool-use guide, the default source.
	Guide string
	// ForcedChoice is how the dialect forces a call; ChoiceShape is the
	// tool_choice that forces one named function.
	ForcedChoice, ChoiceShape string
	// TruncatedSignal is how the API says the token limit cut a turn, and
	// TruncatedSource where it says so ("" = the API drops a cut call:
	// there is nothing to judge).
	TruncatedSignal, TruncatedSource string
	// ErrorLevel, ErrorSummary, ErrorWhy and ErrorSource are the
	// error-flagged check's; ErrorForm is how an error result looks on the
	// wire, ErrorFix how to send one.
	ErrorLevel                          rules.Level
	ErrorSummary, ErrorWhy, ErrorSource string
	ErrorForm, ErrorFix                 string
	// NoErrorFlag: the API has no error flag, so a result says that its
	// call failed by its wording (the OpenAI APIs).
	NoErrorFlag bool
	// ErrorMember is the member of a structured result that flags an
	// error ("" = none; Gemini's functionResponse.response "error").
	ErrorMember string
	// RawArguments: a call's arguments travel as a JSON string, so a
	// scenario can make them unparseable.
	RawArguments bool
	// ResultsByPosition: results are matched to their calls by position
	// (and name), not by id.
	ResultsByPosition bool
	// StructuredObjectIn names where a result must carry structured
	// output as an object ("" = not judged).
	StructuredObjectIn string
	// LimitMember is the request member that carries the output token
	// limit (the task's max_output_tokens); ThinkingInLimit: the thinking
	// budget counts against it.
	LimitMember     string
	ThinkingInLimit bool
	// Thinking reads a request body's thinking configuration (whether it
	// is on, and its token budget), and ThinkingShape words it; nil where
	// the dialect takes no thinking budget the suite asks for.
	Thinking      func(body []byte) (on bool, budget int64)
	ThinkingShape string
	// Strict finds the declaration of a function in a request body:
	// whether it is declared, and whether it carries strict: true; nil
	// where the API has no strict flag.
	Strict func(body []byte, name string) (declared, strict bool)
	// ItemReferences says how a continuation fails to refer to the
	// model's earlier output items by reference ("" = it does); nil where
	// the API has no item references.
	ItemReferences func(body []byte) string
	// MatchSummary is the matches-call check's summary.
	MatchSummary string
	// MediaInResults: a tool result can carry images and files under
	// model.
	MediaInResults func(model string) bool
	// ResultPath finds a call's result in a request body, as the dotted
	// JSON path the reports highlight: the latest result answering
	// callID, or where results carry no id, the latest for a function
	// named name. "" when none is found.
	ResultPath func(body []byte, callID, name string) string
	// ExtraChecks are the dialect's own checks.
	ExtraChecks []JudgeCheck
}

// JudgeCheck is a scenario check only some dialects have. Why "" is the
// check's usual reason for its level.
type JudgeCheck struct {
	Check                 string
	Level                 rules.Level
	Feature, Summary, Why string
	Source                string
}

// Never and Always are MediaInResults for a dialect whose results never
// or always take media.
func Never(string) bool  { return false }
func Always(string) bool { return true }

// FormatPrompt is the user turn of a format-mode request, before the calls.
const FormatPrompt = "Please use the tools to answer."

// FormatCase is one assistant turn of format mode whose calls a driver
// answers, as a dialect builds its requests.
type FormatCase struct {
	// Tag distinguishes the cases' call ids.
	Tag string
	// Media: the results carry images or documents, so the case runs
	// under a model that takes them in tool results.
	Media bool
	Calls []FormatCall
}

// FormatCall is one call of a format case.
type FormatCall struct {
	Name string
	Args map[string]any
}

// Format is what format-driver mode knows of one dialect: the texts of
// its format rules, how its API names calls, the native result
// format_result must answer, and the request that carries the answers
// back to the API.
type Format interface {
	// NativeRule is the format_result rule's summary and source.
	NativeRule() (summary, source string)
	// NormalizeWording says which ids and which arguments normalize_calls
	// returns in this dialect (completing the normalize rules' summaries).
	NormalizeWording() (ids, args string)
	// Model is the model a format case is run under.
	Model(c *FormatCase) string
	// CallID mints the id the API would give call i of a case (tag
	// distinguishes the cases).
	CallID(tag string, i int) string
	// NativeShape says what is wrong with an answer's outer shape ("" =
	// fine); m is the answer, a JSON object.
	NativeShape(m map[string]any) string
	// NativeFix is the fix a wrong native answer is given.
	NativeFix() string
	// OwnCallIDs lists the ids a raw response gives its calls ("" where a
	// call has none) that normalize_calls may return instead of CallID's;
	// nil where only CallID's are right.
	OwnCallIDs(response json.RawMessage) []string
	// CallIDFix is the fix for a call normalized with its name but a
	// wrong id ("" = the generic one).
	CallIDFix() string
	// Tool declares one function in the request.
	Tool(name, description string, schema map[string]any) any
	// Request embeds the answers after the assistant turn that made the
	// case's calls, in the dialect's wire shape.
	Request(model string, c *FormatCase, tools []any, outputs []json.RawMessage) ([]byte, error)
}

// StringField is m[k] when it is a string, "" otherwise.
func StringField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// StrictIn finds the declaration of name among a request body's tools
// (read at member, "" = the tool itself): whether it is declared, and
// whether it carries strict: true.
func StrictIn(body []byte, member, name string) (declared, strict bool) {
	for _, t := range gjson.GetBytes(body, "tools").Array() {
		decl := t
		if member != "" {
			decl = t.Get(member)
		}
		if decl.Get("name").Str == name {
			return true, decl.Get("strict").Type == gjson.True
		}
	}
	return false, false
}

// DecodeAny decodes a driver's answer for embedding in a request (nil
// when it is not JSON).
func DecodeAny(b json.RawMessage) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}
