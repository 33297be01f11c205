package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKToolChoiceNeedsDeclaredTools: naming a declared tool forces its
// call; a forced choice naming a tool the request does not declare, and a
// tool_choice without tools, are answered 200 and journaled as SHOULD
// breaches (no public source shows the API refusing either). Streamed and
// not.
func TestSDKToolChoiceNeedsDeclaredTools(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for name, send := range map[string]func(sdk.MessageNewParams) (*sdk.Message, error){"json": nonStreaming(client(ts, "tool-choice-json")), "sse": streaming(client(ts, "tool-choice-sse"))} {
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
		if _, err := send(p); err != nil {
			t.Fatalf("%s: undeclared tool: %v", name, err)
		}
		p.Tools = nil
		p.ToolChoice = sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{}}
		if _, err := send(p); err != nil {
			t.Fatalf("%s: no tools: %v", name, err)
		}
		seen := map[string]bool{}
		for _, v := range ts.Violations("tool-choice-" + name) {
			if v.Level == "SHOULD" {
				seen[v.Rule] = true
			}
		}
		if !seen[anthropic.RuleToolChoiceDeclared] || !seen[anthropic.RuleToolChoiceNeedsTools] {
			t.Fatalf("%s: journaled %v", name, ts.Violations("tool-choice-"+name))
		}
	}
}
