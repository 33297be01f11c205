package anthropic

import "github.com/tidwall/gjson"

// resultPath is where the tool_result block answering callID sits
// (messages.2.content.0).
func resultPath(body []byte, callID, _ string) string {
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
