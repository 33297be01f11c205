package refdriver

import (
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/checks"
	core "github.com/toolwire/toolwire/suite/refdriver"
)

// mistake is a row of the table: the shared part (name, description,
// the rules it must fail, the shared hooks) and the hooks of this loop.
type mistake struct {
	core.Mistake
	// reply replaces what goes back after a model turn with calls.
	reply func(m *mistake, callTurn types.Message, answers []core.Answer) ([]types.Message, bool)
	// structured replaces the json block made of structured content.
	structured func(map[string]any) types.ToolResultContentBlock
	// result edits each toolResult block once it is built.
	result func(*types.ToolResultBlock)
}

const brk = conv.Bedrock

// mistakes is the table of the mistakes the driver makes on Bedrock
// Converse, each with the rules the suite must fail for it.
var mistakes = []mistake{
	{Mistake: core.SwappedIDs.Failing(checks.ID(brk, checks.MatchesCall))},
	{Mistake: core.OmitIsError.Failing(checks.ID(brk, checks.ErrorFlagged))},
	{Mistake: core.CrashOnUnknownTool},
	{Mistake: core.IgnoreFinalText},

	// The request's shape.
	{Mistake: core.UnknownMember.Failing("bedrock.known-fields")},
	{Mistake: core.TruncatedBody.Failing("bedrock.valid-json")},
	{Mistake: core.ToolNameWithDot.Failing("bedrock.tool-name-pattern").Rewriting(core.EachPath([]string{"toolConfig.tools.#.toolSpec.name"}, func(v gjson.Result) (string, bool) {
		return strconv.Quote("mcp." + v.Str), v.Type == gjson.String
	}))},

	// Correct variants: nothing may fail.
	{Mistake: core.LibraryErrorWording},
	{Mistake: core.ValidateArguments},
}
