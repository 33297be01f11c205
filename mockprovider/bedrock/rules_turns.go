package bedrock

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The conversation, turn by turn: who speaks first, results answering the
// calls of the turn before, and what a result holds.

func turnRules(s *rules.Set[Request]) {
	const msgFirstUser = "A conversation must start with a user message. Try again with a conversation that starts with a user message."
	s.Add(rules.Rule{ID: "bedrock.first-message-user", Level: rules.MUST, Family: "ordering",
		Summary: "The first message is a user message.",
		Refs: []rules.Ref{
			{URL: "https://github.com/pydantic/pydantic-ai/issues/4495", Quote: "'Message': 'A conversation must start with a user message. Try again with a conversation that starts with a user message.', 'Code': 'ValidationException'"},
			{URL: "https://github.com/elastic/kibana/pull/246393", Quote: "Status code: 400 … A conversation must start with a user message."},
			{URL: "https://github.com/deepgram/deepgram-python-sdk/issues/760", Quote: "leading assistant message -> ValidationException, reproduced with converse_stream"},
		},
		Cases: []rules.Case{{Name: "an assistant greeting first", Path: casePath,
			Bad:        body(weatherTool, assistant(`{"text":"Hello!"}`), askWeather),
			Good:       body(weatherTool, askWeather),
			WantStatus: 400, WantMessage: msgFirstUser}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		if len(r.Messages) == 0 || r.Messages[0].Role == roleUser {
			return nil
		}
		return []rules.Violation{turnBreach(0, "messages.0.role", msgFirstUser)}
	})

	s.Add(rules.Rule{ID: "bedrock.roles-alternate", Level: rules.SHOULD, Family: "ordering",
		Summary: "User and assistant messages alternate. Bedrock refused two messages of one role in a row with \"A conversation must alternate between user and assistant roles.\"; it has since relaxed that for some models, so a breach is journaled, not refused.",
		Refs: []rules.Ref{
			{URL: "https://github.com/langchain-ai/langchain-aws/issues/192", Quote: "ValidationException: A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."},
			{URL: "https://github.com/strands-agents/harness-sdk/pull/1240", Quote: "insert a dummy assistant message when consecutive user messages are detected"},
			{Quote: "which models still refuse it is not public: journaled as a SHOULD", Inferred: true},
		},
		Cases: []rules.Case{{Name: "two user messages in a row", Path: casePath,
			Bad:  body(weatherTool, askWeather, user(`{"text":"And in Rome?"}`)),
			Good: body(weatherTool, user(`{"text":"What is the weather in Paris?"}`, `{"text":"And in Rome?"}`))}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		var out []rules.Violation
		for i := 1; i < len(r.Messages); i++ {
			if r.Messages[i].Role == r.Messages[i-1].Role {
				out = append(out, rules.Violation{Order: rules.At(rules.PhaseMeaning, i), Path: fmt.Sprintf("messages.%d.role", i),
					Message: "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."})
			}
		}
		return out
	})

	s.Add(rules.Rule{ID: "bedrock.tool-results-alone", Level: rules.MUST, Family: "pairing",
		Summary: "A user message answering calls holds only toolResult blocks: text beside the results goes in a later turn.",
		Refs: []rules.Ref{
			{URL: "https://github.com/langchain-ai/langchain-aws/issues/141", Quote: "messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same turn."},
			{URL: "https://github.com/BerriAI/litellm/issues/6053", Quote: `BedrockException - {"message":"messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same turn."}`},
			{URL: "https://github.com/strands-agents/harness-sdk/issues/1223", Quote: "ValidationException … messages.4.content: Conversation blocks and tool result blocks cannot be provided in the same turn."},
		},
		Cases: []rules.Case{{Name: "text after the result", Path: casePath,
			Bad:        body(weatherTool, askWeather, callParis, user(toolResult("tooluse_01"), `{"text":"Now summarise."}`)),
			Good:       body(weatherTool, askWeather, callParis, resultParis),
			WantStatus: 400, WantMessage: "messages.2.content: Conversation blocks and tool result blocks cannot be provided in the same turn."}},
	}, eachMessage(slotResultsAlone))

	s.Add(rules.Rule{ID: "bedrock.tool-result-count", Level: rules.MUST, Family: "pairing",
		Summary: "A message holds no more toolResult blocks than the turn before it made toolUse calls.",
		Refs: []rules.Ref{
			{URL: "https://github.com/pydantic/pydantic-ai/issues/2327", Quote: "The number of toolResult blocks exceeds the number of toolUse blocks of previous turn"},
			{URL: "https://github.com/Just-Curieous/Curie/issues/16", Quote: `BedrockException - {"message":"The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn."}`},
		},
		Cases: []rules.Case{{Name: "two results for one call", Path: casePath,
			Bad:        body(weatherTool, askWeather, callParis, user(toolResult("tooluse_01"), toolResult("tooluse_02"))),
			Good:       body(weatherTool, askWeather, assistant(toolUse("tooluse_01", "get_weather"), toolUse("tooluse_02", "get_weather")), user(toolResult("tooluse_01"), toolResult("tooluse_02"))),
			WantStatus: 400, WantMessage: "The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn."}},
	}, eachMessage(slotResultCount))

	s.Add(rules.Rule{ID: "bedrock.tool-uses-answered", Level: rules.MUST, Family: "pairing",
		Summary: "The user message after a turn with toolUse calls holds a toolResult for each of their toolUseIds: results split over several messages, left out or sent under another id are refused, naming the ids without one.",
		Refs: []rules.Ref{
			{URL: "https://github.com/agno-agi/agno/issues/6698", Quote: "An error occurred (ValidationException) when calling the ConverseStream operation: Expected toolResult blocks at messages.2.content for the following Ids: tooluse_jQ912rboYgzgLULQpRxWot, tooluse_sX1A7q9kipz4qAW36LUR1H, …"},
			{URL: "https://github.com/genkit-ai/aws-bedrock-js-plugin/issues/664", Quote: "The second result landing in `messages[3]` instead triggers a `ValidationException (HTTP 400)`: Expected toolResult blocks at messages.2.content for the following Ids: tooluse_<id>"},
			{URL: "https://github.com/maximhq/bifrost/issues/1164", Quote: `"status_code": 400, … "message": "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_eARDw2iqRXak8uyRC2KxXw"`},
		},
		Cases: []rules.Case{{Name: "the second result in a message of its own", Path: casePath,
			Bad: body(weatherTool, askWeather, assistant(toolUse("tooluse_01", "get_weather"), toolUse("tooluse_02", "get_weather")),
				user(toolResult("tooluse_01")), user(toolResult("tooluse_02"))),
			Good:       body(weatherTool, askWeather, assistant(toolUse("tooluse_01", "get_weather"), toolUse("tooluse_02", "get_weather")), user(toolResult("tooluse_01"), toolResult("tooluse_02"))),
			WantStatus: 400, WantMessage: "Expected toolResult blocks at messages.2.content for the following Ids: tooluse_02"}},
	}, eachMessage(slotUsesAnswered))

	s.Add(rules.Rule{ID: "bedrock.error-result-content", Level: rules.MUST, Family: "results",
		Summary: "A toolResult with status error carries content saying what went wrong.",
		Refs: []rules.Ref{
			{URL: "https://github.com/aws-samples/sample-multi-agent-orchestration-chat-on-agentcore/issues/15", Quote: "ValidationException (The content field at messages.<n>.content.0.toolResult cannot be empty when status value is error.)"},
		},
		Cases: []rules.Case{{Name: "an empty error result", Path: casePath,
			Bad:        body(weatherTool, askWeather, callParis, user(`{"toolResult":{"toolUseId":"tooluse_01","content":[],"status":"error"}}`)),
			Good:       body(weatherTool, askWeather, callParis, user(`{"toolResult":{"toolUseId":"tooluse_01","content":[{"text":"city not found"}],"status":"error"}}`)),
			WantStatus: 400, WantMessage: "The content field at messages.2.content.0.toolResult cannot be empty when status value is error."}},
	}, eachMessage(slotErrorResult))

	s.Add(rules.Rule{ID: "bedrock.json-result-object", Level: rules.MUST, Family: "results",
		Summary: "A toolResult's json block holds a JSON object: an array or a scalar goes in a text block.",
		Refs: []rules.Ref{
			{URL: "https://github.com/sigoden/aichat/pull/1550", Quote: "The format of the value at messages.2.content.0.toolResult.content.0.json is invalid. Provide a json object for the field and try again."},
		},
		Cases: []rules.Case{{Name: "an array in a json block", Path: casePath,
			Bad:        body(weatherTool, askWeather, callParis, user(`{"toolResult":{"toolUseId":"tooluse_01","content":[{"json":[1,2]}]}}`)),
			Good:       body(weatherTool, askWeather, callParis, user(`{"toolResult":{"toolUseId":"tooluse_01","content":[{"json":{"items":[1,2]}}]}}`)),
			WantStatus: 400, WantMessage: "The format of the value at messages.2.content.0.toolResult.content.0.json is invalid. Provide a json object for the field and try again."}},
	}, eachMessage(slotJSONResult))
}

// resultsAloneBreaches: message i holds toolResult blocks beside others
// (tool-results-alone).
func resultsAloneBreaches(ms []Message, i int) []rules.Violation {
	results, other := 0, 0
	for _, b := range ms[i].Content {
		switch {
		case b.ToolResult != nil:
			results++
		case b.CachePoint != nil:
		default:
			other++
		}
	}
	if results > 0 && other > 0 {
		path := fmt.Sprintf("messages.%d.content", i)
		return []rules.Violation{turnBreach(i, path, path+": Conversation blocks and tool result blocks cannot be provided in the same turn.")}
	}
	return nil
}

// resultCountBreaches: message i holds more toolResult blocks than
// message i-1 made calls (tool-result-count).
func resultCountBreaches(ms []Message, i int) []rules.Violation {
	results := count(ms[i], func(b Block) bool { return b.ToolResult != nil })
	if results == 0 {
		return nil
	}
	calls := 0
	if i > 0 {
		calls = count(ms[i-1], func(b Block) bool { return b.ToolUse != nil })
	}
	if results > calls {
		return []rules.Violation{turnBreach(i, fmt.Sprintf("messages.%d.content", i),
			fmt.Sprintf("The number of toolResult blocks at messages.%d.content exceeds the number of toolUse blocks of previous turn.", i))}
	}
	return nil
}

// usesAnsweredBreaches: user message i leaves calls of message i-1
// without a result (tool-uses-answered).
func usesAnsweredBreaches(ms []Message, i int) []rules.Violation {
	if i == 0 || ms[i].Role != roleUser {
		return nil
	}
	answered := map[string]bool{}
	for _, b := range ms[i].Content {
		if b.ToolResult != nil {
			answered[b.ToolResult.ToolUseID] = true
		}
	}
	var missing []string
	for _, b := range ms[i-1].Content {
		if b.ToolUse != nil && !answered[b.ToolUse.ToolUseID] {
			missing = append(missing, b.ToolUse.ToolUseID)
		}
	}
	if len(missing) > 0 {
		path := fmt.Sprintf("messages.%d.content", i)
		return []rules.Violation{turnBreach(i, path, "Expected toolResult blocks at "+path+" for the following Ids: "+strings.Join(missing, ", "))}
	}
	return nil
}

// errorResultBreaches: message i holds an error toolResult with no
// content (error-result-content).
func errorResultBreaches(ms []Message, i int) []rules.Violation {
	var out []rules.Violation
	for j, b := range ms[i].Content {
		if tr := b.ToolResult; tr != nil && tr.Status == "error" && len(tr.Content) == 0 {
			path := fmt.Sprintf("messages.%d.content.%d.toolResult", i, j)
			out = append(out, turnBreach(i, path, "The content field at "+path+" cannot be empty when status value is error."))
		}
	}
	return out
}

// jsonResultBreaches: a toolResult of message i holds a json block that
// is not an object (json-result-object).
func jsonResultBreaches(ms []Message, i int) []rules.Violation {
	var out []rules.Violation
	for j, b := range ms[i].Content {
		if b.ToolResult == nil {
			continue
		}
		for k, rb := range b.ToolResult.Content {
			if rb.JSON != nil && rb.JSON.Kind() != '{' {
				path := fmt.Sprintf("messages.%d.content.%d.toolResult.content.%d.json", i, j, k)
				out = append(out, rules.Violation{Order: rules.At(rules.PhaseShape, i), Path: path,
					Message: "The format of the value at " + path + " is invalid. Provide a json object for the field and try again.",
					Status:  http.StatusBadRequest, ErrType: errValidation})
			}
		}
	}
	return out
}

func count(m Message, match func(Block) bool) int {
	n := 0
	for _, b := range m.Content {
		if match(b) {
			n++
		}
	}
	return n
}
