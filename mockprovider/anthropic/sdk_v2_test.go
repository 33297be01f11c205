package anthropic_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toolwire/toolwire/mockprovider"
)

// The requests of this file are ones the real API answers 200 and the
// mock once refused: each is sent with anthropic-sdk-go v2, as a client
// builds it, and must come back 200 with a clean journal.

// TestSDKSystemMessages: role "system" messages (v2's SystemMessageParam)
// between turns, including one placed between a tool_use and its
// tool_result, are accepted; the model reads their text after the system
// prompt, and one with clear_at next_user_message no longer once a later
// user message exists.
func TestSDKSystemMessages(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	for name, send := range map[string]func(sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error){
		"json": func(c sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error) { return nonStreaming(c) },
		"sse":  func(c sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error) { return streaming(c) },
	} {
		t.Run(name, func(t *testing.T) {
			key := "system-" + name
			c := client(ts, key)
			system := func(text string) sdk.MessageParam {
				return sdk.MessageParam{OfSystem: &sdk.SystemMessageParam{Content: []sdk.TextBlockParam{{Text: text}}}}
			}
			p := newParams("What's the weather in Paris? Use get_weather.")
			p.Model = sdk.ModelClaudeSonnet4_5
			p.System = []sdk.TextBlockParam{{Text: "You are a weather assistant."}}
			p.Messages = append(p.Messages, system("Answer in Celsius."))
			first, err := send(c)(p)
			if err != nil {
				t.Fatal(err)
			}
			call := lastToolUse(first)
			if call.Type != "tool_use" {
				t.Fatalf("first answer %+v, want a tool_use", first.Content)
			}
			p.Messages = append(p.Messages, first.ToParam(), system("The user is in a hurry."), sdk.NewUserMessage(answer(call)))
			if _, err := send(c)(p); err != nil {
				t.Fatal(err)
			}
			assertCleanJournal(t, ts, key, 2)
			j := ts.Journal(key)
			if got := j[1].Conversation.System; got != "You are a weather assistant.\nAnswer in Celsius.\nThe user is in a hurry." {
				t.Fatalf("the model read the system text %q", got)
			}
			for _, turn := range j[1].Conversation.Turns {
				if turn.Role != "user" && turn.Role != "assistant" {
					t.Fatalf("a system message became a %q turn", turn.Role)
				}
			}
		})
	}

	// clear_at: shown for the user turn it follows, hidden after a later one.
	c := client(ts, "system-clear")
	p := newParams("Hello.")
	p.Messages = append(p.Messages,
		sdk.MessageParam{OfSystem: &sdk.SystemMessageParam{Content: []sdk.TextBlockParam{{Text: "Greet briefly."}}}})
	raw := `{"model":"claude-opus-4-1","max_tokens":256,"messages":[` +
		`{"role":"user","content":"Hello."},` +
		`{"role":"system","content":[{"type":"text","text":"Greet briefly."}],"clear_at":"next_user_message"},` +
		`{"role":"assistant","content":"Hi."},` +
		`{"role":"user","content":"How are you?"}]}`
	var msg sdk.Message
	if err := c.Post(context.Background(), "/v1/messages", strings.NewReader(raw), &msg); err != nil {
		t.Fatal(err)
	}
	if _, err := nonStreaming(c)(p); err != nil {
		t.Fatal(err)
	}
	assertCleanJournal(t, ts, "system-clear", 2)
	if got := ts.Journal("system-clear")[0].Conversation.System; got != "" {
		t.Fatalf("a cleared system message still read: %q", got)
	}
	if got := ts.Journal("system-clear")[1].Conversation.System; got != "Greet briefly." {
		t.Fatalf("a system message not read: %q", got)
	}
}

// TestSDKSystemMessageAddsTool: a beta system message whose tool_addition
// defines a tool inline (and carries only output_config beside it is
// fine too) offers that tool to the model: asked to use it, the model
// calls it, and tool_choice may force it.
func TestSDKSystemMessageAddsTool(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "tool-addition")
	addition := sdk.BetaSystemMessageParamContentUnion{OfToolAddition: &sdk.BetaRequestToolAdditionBlockParam{
		Tool: sdk.BetaRequestToolAdditionBlockToolUnionParam{OfToolDefinition: &sdk.BetaToolChangeToolDefinitionParam{
			Definition: sdk.BetaToolUnionParam{OfTool: &sdk.BetaToolParam{
				Name:        "get_time",
				Description: sdk.String("Get the local time in a city."),
				InputSchema: sdk.BetaToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
			}},
		}},
	}}
	p := sdk.BetaMessageNewParams{
		Model:     sdk.ModelClaudeSonnet4_5,
		MaxTokens: 1024,
		Messages: []sdk.BetaMessageParam{
			sdk.NewBetaSystemMessage(sdk.BetaSystemMessageOutputConfigParam{Effort: sdk.BetaSystemMessageOutputConfigEffortLow}),
			sdk.NewBetaUserMessage(sdk.NewBetaTextBlock("What time is it in Paris? Use get_time.")),
			sdk.NewBetaSystemMessage(sdk.BetaSystemMessageOutputConfigParam{}, addition),
		},
		ToolChoice: sdk.BetaToolChoiceUnionParam{OfTool: &sdk.BetaToolChoiceToolParam{Name: "get_time"}},
	}
	msg, err := c.Beta.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(msg.Content); n == 0 || msg.Content[n-1].Type != "tool_use" || msg.Content[n-1].Name != "get_time" {
		t.Fatalf("answer %+v, want a get_time call", msg.Content)
	}
	assertCleanJournal(t, ts, "tool-addition", 1)
}

// TestSDKAdaptiveThinkingForcedChoice: adaptive thinking supports forced
// tool use (https://platform.claude.com/docs/build-with-claude/thinking-tool-workflows);
// only manual extended thinking refuses it.
func TestSDKAdaptiveThinkingForcedChoice(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "adaptive-forced")
	for _, choice := range []sdk.ToolChoiceUnionParam{{OfAny: &sdk.ToolChoiceAnyParam{}}, sdk.ToolChoiceParamOfTool("get_weather")} {
		p := newParams("What's the weather in Paris?")
		p.Model = sdk.ModelClaudeOpus4_7
		p.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
		p.ToolChoice = choice
		msg, err := nonStreaming(c)(p)
		if err != nil {
			t.Fatal(err)
		}
		if lastToolUse(msg).Type != "tool_use" {
			t.Fatalf("forced choice answered %+v", msg.Content)
		}
	}
	assertCleanJournal(t, ts, "adaptive-forced", 2)
}

// TestSDKToolUseIDReusedAfterAnswer: an agent that numbers its calls per
// turn sends a tool_use id again in a later turn, after the first call of
// that id was answered. Ids need to be unique within a message, not
// across the conversation.
func TestSDKToolUseIDReusedAfterAnswer(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "id-reuse")
	call := func(location string) sdk.MessageParam {
		return sdk.NewAssistantMessage(sdk.NewToolUseBlock("call_0", map[string]any{"location": location}, "get_weather"))
	}
	result := sdk.NewUserMessage(sdk.NewToolResultBlock("call_0", "18C", false))
	p := newParams("What's the weather in Paris, then in Rome?")
	p.Model = "claude-opus-4-1"
	p.Messages = append(p.Messages, call("Paris"), result, call("Rome"), result)
	if _, err := nonStreaming(c)(p); err != nil {
		t.Fatal(err)
	}
	assertCleanJournal(t, ts, "id-reuse", 1)
}
