package openaichat

import "github.com/tidwall/gjson"

// resultPath is where the tool message answering callID sits (messages.3).
func resultPath(body []byte, callID, _ string) string {
	path := ""
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		if m.Get("role").Str == "tool" && m.Get("tool_call_id").Str == callID {
			path = "messages." + i.String()
		}
		return true
	})
	return path
}
