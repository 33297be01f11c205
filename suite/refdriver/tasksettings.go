package refdriver

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/suite/task"
)

// Variants about what the task asks the request to carry, and about how a
// library words the errors it sends. The mistakes drop a setting of the
// task (every request stays valid, and the API answers it, so only the
// task shows it); the correct variants do what popular libraries do,
// which the suite must accept.
const (
	// Mistakes.
	ThinkingNotSent        Break = "thinking-not-sent"
	MaxOutputTokensIgnored Break = "max-output-tokens-ignored"
	ItemReferencesIgnored  Break = "item-references-ignored"
	// A correct variant: with item_references on, the client function
	// calls are still replayed in full (as the Vercel AI SDK does on
	// purpose, vercel/ai#11114), the other output items referenced.
	CallsReplayedInFull Break = "calls-replayed-in-full"
	ErrorAsNull         Break = "error-as-null"
	// Correct variants.
	LibraryErrorWording Break = "library-error-wording"
	ValidateArguments   Break = "validate-arguments"
)

func init() {
	chat, resp, anth := conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic
	all = append(all,
		BreakInfo{ThinkingNotSent, []conv.Dialect{anth}, "leave the task's thinking out of the request (the model then never thinks, and nothing is passed back)"},
		BreakInfo{MaxOutputTokensIgnored, nil, "ignore the task's max_output_tokens: send no limit (Anthropic: the driver's own 1024)"},
		BreakInfo{ItemReferencesIgnored, []conv.Dialect{resp}, "ignore the task's item_references: replay the earlier output items in full"},
		BreakInfo{CallsReplayedInFull, []conv.Dialect{resp}, "correct variant: with item_references on, replay the client function calls in full and refer to the other output items"},
		BreakInfo{ErrorAsNull, []conv.Dialect{chat, resp}, `send "null" (the JSON of the structured content an error lacks) as the output of every tool error`},
		BreakInfo{LibraryErrorWording, nil, `correct variant: word errors as popular libraries do ("An error occurred while running <tool>: …", "Tool \"x\" not found. Available tools: …", "An error occurred while parsing tool arguments …"), no "Error:" prefix`},
		BreakInfo{ValidateArguments, nil, "correct variant: validate each call's arguments against the tool's schema before running it, and answer a call that breaks it with the validation error (not the tool's result)"},
	)
}

// startLimit is the output token limit of the first request: the task's
// (0 = none), unless the max-output-tokens-ignored break drops it.
func (d *Driver) startLimit(t *task.Task) int {
	if d.Break == MaxOutputTokensIgnored {
		return 0
	}
	return t.MaxOutputTokens
}

// byReference reports whether the Responses loop continues by
// item_reference: when the task asks, unless a break says otherwise.
func (d *Driver) byReference(t *task.Task, chain bool) bool {
	return t.ItemReferences && !chain && d.Break != ItemReferencesIgnored
}

// libraryWording rewords an error result the way popular libraries send
// a tool's failure, so the suite is proven to judge the error's content
// and not a prefix. Other results pass unchanged.
func libraryWording(name string, r task.CallToolResult) task.CallToolResult {
	if !r.IsError {
		return r
	}
	return task.ErrorResult(fmt.Sprintf("An error occurred while running %s: %s", name, r.Text()))
}

// unknownToolWording is how libraries answer a call to an undeclared tool.
func unknownToolWording(t *task.Task, name string) task.CallToolResult {
	names := make([]string, len(t.Tools))
	for i, tool := range t.Tools {
		names[i] = tool.Name
	}
	return task.ErrorResult(fmt.Sprintf("Tool %q not found. Available tools: %s", name, strings.Join(names, ", ")))
}

// argumentsWording is how libraries answer arguments that do not parse.
const argumentsWording = "An error occurred while parsing tool arguments. Please try again with valid JSON."

// validationError validates a call's arguments against its tool's
// schema, as libraries that check arguments before running the tool do;
// "" when they hold (or the tool is unknown, or its schema does not
// compile: then the tool runs as usual).
func validationError(t *task.Task, name string, args map[string]any) string {
	tool := t.Tool(name)
	if tool == nil {
		return ""
	}
	schema, err := scenario.CompileParameters(tool.Parameters)
	if err != nil {
		return ""
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(args)))
	if err != nil {
		return ""
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Sprintf("Tool input validation failed for %s: %s", name, oneLine(err.Error()))
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
