package refdriver

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/suite/task"
)

// libraryAnswer words errors the way popular libraries send a tool's
// failure, so the suite is proven to judge the error's content and not
// a prefix.
func libraryAnswer(t *task.Task, c Call, honest func(*task.Task, Call) (task.CallToolResult, error)) (task.CallToolResult, error) {
	switch {
	case c.BadArgs:
		return task.ErrorResult(argumentsWording), nil
	case t.Tool(c.Name) == nil:
		return unknownToolWording(t, c.Name), nil
	}
	r, err := honest(t, c)
	if err != nil || !r.IsError {
		return r, err
	}
	return task.ErrorResult(fmt.Sprintf("An error occurred while running %s: %s", c.Name, r.Text())), nil
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

// validatingAnswer answers a call whose arguments break its tool's
// schema with the validation error, as libraries that check arguments
// before running the tool do.
func validatingAnswer(t *task.Task, c Call, honest func(*task.Task, Call) (task.CallToolResult, error)) (task.CallToolResult, error) {
	if c.BadArgs {
		return task.ErrorResult(fmt.Sprintf("Tool input validation failed for %s: the arguments are not valid JSON", c.Name)), nil
	}
	if msg := validationError(t, c.Name, c.Args); msg != "" {
		return task.ErrorResult(msg), nil
	}
	return honest(t, c)
}

// validationError validates a call's arguments against its tool's
// schema; "" when they hold (or the tool is unknown, or its schema does
// not compile: then the tool runs as usual).
func validationError(t *task.Task, name string, args map[string]any) string {
	tool := t.Tool(name)
	if tool == nil {
		return ""
	}
	schema, err := scenario.CompileParameters(tool.Parameters)
	if err != nil {
		return ""
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(MustJSON(args)))
	if err != nil {
		return ""
	}
	if err := schema.Validate(v); err != nil {
		return fmt.Sprintf("Tool input validation failed for %s: %s", name, oneLine(err.Error()))
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
