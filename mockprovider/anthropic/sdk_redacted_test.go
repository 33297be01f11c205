package anthropic_test

import (
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// redactedScenario scripts a redacted thinking block before the call.
const redactedScenario = `
name: redacted-thinking
tools:
  - name: get_weather
    parameters:
      type: object
      properties: {location: {type: string}}
      required: [location]
turns:
  - reasoning: {redacted: true}
    calls:
      - name: get_weather
        arguments: {location: Paris}
  - text: "The weather: {{results}}"
`

func redactedServer(t *testing.T) *mockprovider.TestServer {
	t.Helper()
	sc, err := scenario.Parse("redacted-thinking.yaml", []byte(redactedScenario))
	if err != nil {
		t.Fatal(err)
	}
	set, err := scenario.NewSet(sc)
	if err != nil {
		t.Fatal(err)
	}
	return newServer(t, mockprovider.Options{Scenarios: set})
}

// TestSDKRedactedThinkingPassBack: a scripted redacted thinking block
// comes after the signed thinking block and before the tool_use (streamed
// whole in its content_block_start); the SDK's ToParam passes it back and
// the loop ends clean; changed data gets the API's 400.
func TestSDKRedactedThinkingPassBack(t *testing.T) {
	ts := redactedServer(t)
	for name, send := range map[string]func(sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error){
		"json": func(c sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error) { return nonStreaming(c) },
		"sse":  func(c sdk.Client) func(sdk.MessageNewParams) (*sdk.Message, error) { return streaming(c) },
	} {
		t.Run(name, func(t *testing.T) {
			key := "redacted-" + name
			header := option.WithHeader(mockprovider.ScenarioHeader, "redacted-thinking")
			msgs := loop(t, send(client(ts, key, header)), thinkingParams("What's the weather in Paris?"))
			first := msgs[0]
			if len(first.Content) != 3 || first.Content[0].Type != "thinking" || first.Content[1].Type != "redacted_thinking" ||
				first.Content[1].Data == "" || first.Content[2].Type != "tool_use" {
				t.Fatalf("first answer %+v, want thinking, redacted_thinking, tool_use", first.Content)
			}
			assertCleanJournal(t, ts, key, len(msgs))
			if name == "sse" {
				var starts, redactedDeltas int
				for _, e := range ts.Journal(key)[0].Events {
					data := string(e.Data)
					if e.Event == "content_block_start" && strings.Contains(data, `"redacted_thinking"`) && strings.Contains(data, first.Content[1].Data) {
						starts++
					}
					if e.Event == "content_block_delta" && strings.Contains(data, `"index":1,`) {
						redactedDeltas++
					}
				}
				if starts != 1 || redactedDeltas != 0 {
					t.Fatalf("redacted block: %d whole starts, %d deltas; want 1 and 0", starts, redactedDeltas)
				}
			}

			p := thinkingParams("What's the weather in Paris?")
			p.Messages = append(p.Messages, first.ToParam(), sdk.NewUserMessage(answer(first.Content[2])))
			data := p.Messages[1].OfAssistant.Content[1].OfRedactedThinking.Data
			p.Messages[1].OfAssistant.Content[1].OfRedactedThinking.Data = data[:10] + strings.ToLower(data[10:20]) + strings.ToUpper(data[20:])
			assertAPIError(t, send(client(ts, key+"-changed", header)), p, anthropic.RuleRedactedThinking,
				"messages.1.content.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.")
		})
	}
}

// TestSDKRedactedThinkingNeedsThinking: without thinking enabled the
// scripted redacted block is not sent.
func TestSDKRedactedThinkingNeedsThinking(t *testing.T) {
	ts := redactedServer(t)
	c := client(ts, "redacted-off", option.WithHeader(mockprovider.ScenarioHeader, "redacted-thinking"))
	msg, err := nonStreaming(c)(newParams("What's the weather in Paris?"))
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Type != "tool_use" {
		t.Fatalf("answer %+v, want the tool_use alone", msg.Content)
	}
}
