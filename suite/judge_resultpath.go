package suite

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// Where a tool result sits in a request body, as the dotted JSON path the
// reports highlight (messages.3, input.2, messages.2.content.0,
// contents.2.parts.0): the latest result answering callID, or, where the
// dialect's results carry no id (Gemini 2.5), the latest for a function
// named name. "" when none is found.

func chatResultPath(body []byte, callID, _ string) string {
	path := ""
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		if m.Get("role").Str == "tool" && m.Get("tool_call_id").Str == callID {
			path = "messages." + i.String()
		}
		return true
	})
	return path
}

func responsesResultPath(body []byte, callID, _ string) string {
	path := ""
	gjson.GetBytes(body, "input").ForEach(func(i, it gjson.Result) bool {
		if it.Get("type").Str == "function_call_output" && it.Get("call_id").Str == callID {
			path = "input." + i.String()
		}
		return true
	})
	return path
}

func anthropicResultPath(body []byte, callID, _ string) string {
	path := ""
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		m.Get("content").ForEach(func(j, b gjson.Result) bool {
			if b.Get("type").Str == "tool_result" && b.Get("tool_use_id").Str == callID {
				path = "messages." + i.String() + ".content." + j.String()
			}
			return true
		})
		return true
	})
	return path
}

func geminiResultPath(body []byte, callID, name string) string {
	byID, byName := "", ""
	gjson.GetBytes(body, "contents").ForEach(func(i, c gjson.Result) bool {
		c.Get("parts").ForEach(func(j, p gjson.Result) bool {
			fr := p.Get("functionResponse")
			if !fr.Exists() {
				return true
			}
			at := "contents." + i.String() + ".parts." + strconv.Itoa(int(j.Int()))
			if callID != "" && fr.Get("id").Str == callID {
				byID = at
			}
			if fr.Get("name").Str == name {
				byName = at
			}
			return true
		})
		return true
	})
	if byID != "" {
		return byID
	}
	return byName
}
