package suite

import (
	"encoding/json"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// formatDialect is what format-driver mode knows of one dialect: the texts
// of its format rules, how its API names calls, the native result
// format_result must answer, and the request that carries the answers back
// to the API. One implementation per dialect (formatmode_<dialect>.go).
type formatDialect interface {
	// nativeRule is the format_result rule's summary and source.
	nativeRule() (summary, source string)
	// normalizeWording says which ids and which arguments normalize_calls
	// returns in this dialect (completing the normalize rules' summaries).
	normalizeWording() (ids, args string)
	// model is the model a format case is run under.
	model(c *formatCase) string
	// callID mints the id the API would give call i of a case (tag
	// distinguishes the cases).
	callID(tag string, i int) string
	// nativeShape says what is wrong with an answer's outer shape ("" =
	// fine); m is the answer, a JSON object.
	nativeShape(m map[string]any) string
	// nativeFix is the fix a wrong native answer is given.
	nativeFix() string
	// ownCallIDs lists the ids a raw response gives its calls ("" where a
	// call has none) that normalize_calls may return instead of callID's;
	// nil where only callID's are right.
	ownCallIDs(response json.RawMessage) []string
	// callIDFix is the fix for a call normalized with its name but a wrong
	// id ("" = the generic one).
	callIDFix() string
	// resultsByName: results carry no call id, so each is matched to its
	// call by position and function name.
	resultsByName() bool
	// mediaInResults: a tool result of case c can carry images and files.
	mediaInResults(c *formatCase) bool
	// structuredObjectIn names where a result must carry structured output
	// as an object ("" = not judged).
	structuredObjectIn() string
	// tool declares one function in the request.
	tool(name, description string, schema map[string]any) any
	// request embeds the answers after the assistant turn that made the
	// case's calls, in the dialect's wire shape.
	request(model string, c *formatCase, tools []any, outputs []json.RawMessage) ([]byte, error)
}

// formatDialects holds every dialect's format knowledge.
var formatDialects = map[conv.Dialect]formatDialect{
	conv.OpenAIChat:      formatOpenAIChat{},
	conv.OpenAIResponses: formatOpenAIResponses{},
	conv.Anthropic:       formatAnthropic{},
	conv.Gemini:          formatGemini{},
}

// callIDFor mints the id a dialect's API would give call i of a case.
func callIDFor(d conv.Dialect, c *formatCase, i int) string {
	return formatDialects[d].callID(strings.ReplaceAll(strings.TrimPrefix(c.name, "format-"), "-", ""), i)
}

// stringField is m[k] when it is a string, "" otherwise.
func stringField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// decodeAny decodes a driver's answer for embedding (nil when not JSON).
func decodeAny(b json.RawMessage) any {
	var v any
	_ = json.Unmarshal(b, &v)
	return v
}
