package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKToolChoiceNeedsDeclaredTools: a forced choice naming a tool the
// request does not declare, and a tool_choice without tools, are 400s;
// naming a declared tool forces its call. Streamed and not.
func TestSDKToolChoiceNeedsDeclaredTools(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "tool-choice")
	for name, send := range map[string]func(sdk.MessageNewParams) (*sdk.Message, error){"json": nonStreaming(c), "sse": streaming(c)} {
		p := newParams("Tell me about Paris.")
		p.ToolChoice = sdk.ToolChoiceParamOfTool("get_chart")
		msg, err := send(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(msg.Content) == 0 || msg.Content[len(msg.Content)-1].Name != "get_chart" {
			t.Fatalf("%s: forced choice answered %+v", name, msg.Content)
		}
		p.ToolChoice = sdk.ToolChoiceParamOfTool("get_forecast")
		assertAPIError(t, send, p, anthropic.RuleToolChoiceDeclared, "tool_choice.tool.name: Tool 'get_forecast' not found in the provided tools.")
		p.Tools = nil
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		assertAPIError(t, send, p, anthropic.RuleToolChoiceNeedsTools, "tool_choice: tool_choice may only be specified while providing tools.")
	}
}
