package refdriver

import (
	"strconv"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Mistakes only a judge that compares against what the model issued and
// what the task asked for can see: every request they produce is valid
// on its own. Made on the wire (the request body on its way out), the
// same way for every SDK.
const (
	// Every dialect.
	DropLastCall    Break = "drop-last-call"
	DuplicateResult Break = "duplicate-result"
	ToolChoiceLost  Break = "tool-choice-not-sent"
	// OpenAI Chat, OpenAI Responses and Anthropic.
	StrictLost Break = "strict-not-sent"
	// OpenAI Responses; a correct variant, not a mistake: the output
	// string is the JSON of the MCP content blocks, which carries every
	// block's text (the suite must look inside it).
	BlocksAsJSONOutput Break = "blocks-as-json-output"
	// OpenAI Chat; a correct variant: a model turn with text and calls
	// replayed as two assistant messages, the text and then the calls (as
	// the OpenAI Agents SDK sends it). Every call still reaches the API.
	SplitTextAndCalls Break = "split-text-and-calls"
)

func init() {
	chat, resp, anth, gem := conv.OpenAIChat, conv.OpenAIResponses, conv.Anthropic, conv.Gemini
	all = append(all,
		BreakInfo{DropLastCall, nil, "drop the last call of a parallel batch from the replayed model turn together with its result (code that reads only the first calls)"},
		BreakInfo{DuplicateResult, []conv.Dialect{chat, resp, anth, gem}, "send the first result of every batch twice"},
		BreakInfo{ToolChoiceLost, nil, "leave the task's forced tool_choice (Gemini: toolConfig) out of the request"},
		BreakInfo{StrictLost, []conv.Dialect{chat, resp, anth}, "declare strict tools with strict: false (the flag not passed through)"},
		BreakInfo{BlocksAsJSONOutput, []conv.Dialect{resp}, "correct variant: send function_call_output.output as the JSON text of the result's MCP content blocks"},
		BreakInfo{SplitTextAndCalls, []conv.Dialect{chat}, "correct variant: replay a model turn with text and calls as two assistant messages, the text first, then the calls"},
	)
}

// issuedEdits returns the body rewrite of the mistakes above, or nil.
func (d *Driver) issuedEdits() func([]byte) []byte {
	switch d.Break {
	case DropLastCall:
		return dropLastCall
	case DuplicateResult:
		return duplicateFirstResult
	case ToolChoiceLost:
		return func(body []byte) []byte { return deleteKey("toolConfig")(deleteKey("tool_choice")(body)) }
	case StrictLost:
		return eachPath([]string{"tools.#.function.strict", "tools.#.strict"}, func(v gjson.Result) (string, bool) {
			return "false", v.Type == gjson.True
		})
	case SplitTextAndCalls:
		return mapArray("messages", func(m gjson.Result) []string {
			text := m.Get("content")
			if m.Get("role").Str != "assistant" || !m.Get("tool_calls").IsArray() || text.Type != gjson.String || text.Str == "" {
				return []string{m.Raw}
			}
			calls, _ := sjson.Delete(m.Raw, "content")
			return []string{string(mustJSON(map[string]string{"role": "assistant", "content": text.Str})), calls}
		})
	case BlocksAsJSONOutput:
		return func(body []byte) []byte {
			for i, it := range gjson.GetBytes(body, "input").Array() {
				out := it.Get("output")
				if it.Get("type").Str != "function_call_output" || out.Type != gjson.String {
					continue
				}
				blocks := mustJSON([]map[string]string{{"type": "text", "text": out.Str}})
				body, _ = sjson.SetBytes(body, "input."+strconv.Itoa(i)+".output", string(blocks))
			}
			return body
		}
	}
	return nil
}

// dropLastCall removes, from every model turn with two calls or more,
// the last call, and the result answering it.
func dropLastCall(body []byte) []byte {
	dropped := map[string]bool{}
	switch {
	case gjson.GetBytes(body, "contents").IsArray():
		return dropLastGeminiCall(body)
	case gjson.GetBytes(body, "input").IsArray():
		// Responses: a batch is a run of adjacent function_call items.
		items := gjson.GetBytes(body, "input").Array()
		var keep []string
		for i := 0; i < len(items); i++ {
			if items[i].Get("type").Str != "function_call" {
				keep = append(keep, items[i].Raw)
				continue
			}
			j := i
			for j+1 < len(items) && items[j+1].Get("type").Str == "function_call" {
				j++
			}
			for k := i; k <= j; k++ {
				if k == j && j > i {
					dropped[items[k].Get("call_id").Str] = true
					continue
				}
				keep = append(keep, items[k].Raw)
			}
			i = j
		}
		body = setArray(body, "input", keep)
		return mapArray("input", func(it gjson.Result) []string {
			if it.Get("type").Str == "function_call_output" && dropped[it.Get("call_id").Str] {
				return nil
			}
			return []string{it.Raw}
		})(body)
	}
	// Chat (tool_calls, tool messages) and Anthropic (tool_use and
	// tool_result blocks).
	body = mapArray("messages", func(m gjson.Result) []string {
		if m.Get("role").Str != "assistant" {
			return []string{m.Raw}
		}
		if calls := m.Get("tool_calls").Array(); len(calls) >= 2 {
			last := calls[len(calls)-1]
			dropped[last.Get("id").Str] = true
			out, _ := sjson.Delete(m.Raw, "tool_calls."+strconv.Itoa(len(calls)-1))
			return []string{out}
		}
		var uses []int
		for i, b := range m.Get("content").Array() {
			if b.Get("type").Str == "tool_use" {
				uses = append(uses, i)
			}
		}
		if len(uses) < 2 {
			return []string{m.Raw}
		}
		last := uses[len(uses)-1]
		dropped[m.Get("content."+strconv.Itoa(last)+".id").Str] = true
		out, _ := sjson.Delete(m.Raw, "content."+strconv.Itoa(last))
		return []string{out}
	})(body)
	return mapArray("messages", func(m gjson.Result) []string {
		if m.Get("role").Str == "tool" && dropped[m.Get("tool_call_id").Str] {
			return nil
		}
		content := m.Get("content")
		if m.Get("role").Str != "user" || !content.IsArray() {
			return []string{m.Raw}
		}
		var keep []string
		for _, b := range content.Array() {
			if b.Get("type").Str == "tool_result" && dropped[b.Get("tool_use_id").Str] {
				continue
			}
			keep = append(keep, b.Raw)
		}
		return []string{setArrayRaw(m.Raw, "content", keep)}
	})(body)
}

// dropLastGeminiCall removes the last functionCall part of every model
// content with two or more, and the last functionResponse part of the
// content after it (responses pair with calls by position).
func dropLastGeminiCall(body []byte) []byte {
	contents := gjson.GetBytes(body, "contents").Array()
	var out []string
	dropNextResponse := false
	for _, c := range contents {
		var calls, responses []int
		for i, p := range c.Get("parts").Array() {
			if p.Get("functionCall").Exists() {
				calls = append(calls, i)
			}
			if p.Get("functionResponse").Exists() {
				responses = append(responses, i)
			}
		}
		raw := c.Raw
		switch {
		case len(calls) >= 2:
			raw, _ = sjson.Delete(raw, "parts."+strconv.Itoa(calls[len(calls)-1]))
			dropNextResponse = true
		case dropNextResponse && len(responses) > 0:
			raw, _ = sjson.Delete(raw, "parts."+strconv.Itoa(responses[len(responses)-1]))
			dropNextResponse = false
		}
		out = append(out, raw)
	}
	return setArray(body, "contents", out)
}

// duplicateFirstResult sends the first result after every model turn
// with calls twice: a tool message, a function_call_output item, a
// tool_result block or a functionResponse part.
func duplicateFirstResult(body []byte) []byte {
	switch {
	case gjson.GetBytes(body, "contents").IsArray():
		return mapArray("contents", func(c gjson.Result) []string {
			parts := c.Get("parts").Array()
			for i, p := range parts {
				if p.Get("functionResponse").Exists() {
					return []string{insertAfter(c.Raw, "parts", parts, i)}
				}
			}
			return []string{c.Raw}
		})(body)
	case gjson.GetBytes(body, "input").IsArray():
		afterCalls := false
		return mapArray("input", func(it gjson.Result) []string {
			switch it.Get("type").Str {
			case "function_call":
				afterCalls = true
			case "function_call_output":
				if afterCalls {
					afterCalls = false
					return []string{it.Raw, it.Raw}
				}
			}
			return []string{it.Raw}
		})(body)
	}
	afterCalls := false
	return mapArray("messages", func(m gjson.Result) []string {
		switch m.Get("role").Str {
		case "assistant":
			afterCalls = len(m.Get("tool_calls").Array()) > 0
		case "tool":
			if afterCalls {
				afterCalls = false
				return []string{m.Raw, m.Raw}
			}
		case "user":
			blocks := m.Get("content").Array()
			for i, b := range blocks {
				if b.Get("type").Str == "tool_result" {
					return []string{insertAfter(m.Raw, "content", blocks, i)}
				}
			}
		}
		return []string{m.Raw}
	})(body)
}

// insertAfter repeats element i of the array at key of the object raw.
func insertAfter(raw, key string, elems []gjson.Result, i int) string {
	var items []string
	for k, e := range elems {
		items = append(items, e.Raw)
		if k == i {
			items = append(items, e.Raw)
		}
	}
	return setArrayRaw(raw, key, items)
}

// setArray replaces the array at key of body by the raw JSON items.
func setArray(body []byte, key string, items []string) []byte {
	out, err := sjson.SetRawBytes(body, key, []byte(joinRaw(items)))
	if err != nil {
		return body
	}
	return out
}

func setArrayRaw(raw, key string, items []string) string {
	out, err := sjson.SetRaw(raw, key, joinRaw(items))
	if err != nil {
		return raw
	}
	return out
}

func joinRaw(items []string) string {
	b := []byte{'['}
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return string(append(b, ']'))
}
