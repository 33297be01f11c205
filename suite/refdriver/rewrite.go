package refdriver

import (
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Wire-level breaks: mistakes the typed SDK params cannot make, so the
// request body is edited on its way out.
const (
	BadToolName         Break = "bad-tool-name"
	InvalidSchema       Break = "invalid-schema"
	InputAsString       Break = "input-as-string"
	IsErrorString       Break = "is-error-string"
	ResponsesArgsObject Break = "responses-arguments-object"
	GeminiArgsString    Break = "gemini-args-string"
	GeminiResponseStr   Break = "gemini-response-string"
	GeminiRoleFunction  Break = "gemini-role-function"
)

func init() {
	all = append(all,
		BreakInfo{BadToolName, []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses, conv.Gemini}, "declare tools with names the API rejects (spaces, punctuation)"},
		BreakInfo{InvalidSchema, []conv.Dialect{conv.OpenAIChat, conv.OpenAIResponses}, "declare tool parameters that are not a valid JSON Schema"},
		BreakInfo{InputAsString, []conv.Dialect{conv.Anthropic}, "replay tool_use.input as a JSON string"},
		BreakInfo{IsErrorString, []conv.Dialect{conv.Anthropic}, `send is_error as the string "true"`},
		BreakInfo{ResponsesArgsObject, []conv.Dialect{conv.OpenAIResponses}, "replay function_call.arguments as an object"},
		BreakInfo{GeminiArgsString, []conv.Dialect{conv.Gemini}, "replay functionCall.args as a JSON string"},
		BreakInfo{GeminiResponseStr, []conv.Dialect{conv.Gemini}, "send functionResponse.response as a JSON string"},
		BreakInfo{GeminiRoleFunction, []conv.Dialect{conv.Gemini}, `send function responses in a content with role "function"`},
	)
}

// edit returns the body rewrite of the driver's break, or nil.
func (d *Driver) edit() func([]byte) []byte {
	switch d.Break {
	case ArgumentsAsObject:
		return argumentsAsObject
	case BadToolName:
		return eachPath([]string{"tools.#.function.name", "tools.#.name", "tools.#.functionDeclarations.#.name"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote("get weather!"), v.Type == gjson.String
		})
	case InvalidSchema:
		return eachPath([]string{"tools.#.function.parameters", "tools.#.parameters"}, func(v gjson.Result) (string, bool) {
			return `{"type":"object","properties":{"x":{"type":"objekt"}}}`, v.IsObject()
		})
	case InputAsString:
		return eachPath([]string{"messages.#.content.#.input"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote(v.Raw), v.IsObject()
		})
	case IsErrorString:
		return eachPath([]string{"messages.#.content.#.is_error"}, func(v gjson.Result) (string, bool) {
			return `"true"`, v.Type == gjson.True
		})
	case ResponsesArgsObject:
		return eachPath([]string{"input.#.arguments"}, func(v gjson.Result) (string, bool) {
			return v.Str, v.Type == gjson.String && gjson.Valid(v.Str) && gjson.Parse(v.Str).IsObject()
		})
	case GeminiArgsString:
		return eachPath([]string{"contents.#.parts.#.functionCall.args"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote(v.Raw), v.IsObject()
		})
	case GeminiResponseStr:
		return eachPath([]string{"contents.#.parts.#.functionResponse.response"}, func(v gjson.Result) (string, bool) {
			return strconv.Quote(v.Raw), v.IsObject()
		})
	case GeminiRoleFunction:
		return func(body []byte) []byte {
			for i, c := range gjson.GetBytes(body, "contents").Array() {
				if c.Get("parts.0.functionResponse").Exists() {
					body, _ = sjson.SetBytes(body, "contents."+strconv.Itoa(i)+".role", "function")
				}
			}
			return body
		}
	}
	return d.moreEdits()
}

// eachPath rewrites every value found at the patterns ("#" = every array
// index) for which repl says ok, with repl's raw JSON.
func eachPath(patterns []string, repl func(gjson.Result) (string, bool)) func([]byte) []byte {
	return func(body []byte) []byte {
		for _, p := range patterns {
			for _, path := range expand(body, p) {
				v := gjson.GetBytes(body, path)
				if !v.Exists() {
					continue
				}
				if raw, ok := repl(v); ok {
					if out, err := sjson.SetRawBytes(body, path, []byte(raw)); err == nil {
						body = out
					}
				}
			}
		}
		return body
	}
}

// expand turns "a.#.b.#.c" into the concrete paths present in body.
func expand(body []byte, pattern string) []string {
	paths := []string{""}
	for _, seg := range splitPath(pattern) {
		var next []string
		for _, p := range paths {
			if seg != "#" {
				next = append(next, join(p, seg))
				continue
			}
			n := len(gjson.GetBytes(body, p).Array())
			for i := 0; i < n; i++ {
				next = append(next, join(p, strconv.Itoa(i)))
			}
		}
		paths = next
	}
	return paths
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}
