package bedrock

import "github.com/tidwall/gjson"

// resultPath is where the toolResult block answering callID sits
// (messages.2.content.0).
func resultPath(body []byte, callID, _ string) string {
	path := ""
	gjson.GetBytes(body, "messages").ForEach(func(i, m gjson.Result) bool {
		m.Get("content").ForEach(func(j, b gjson.Result) bool {
			if b.Get("toolResult.toolUseId").Str == callID {
				path = "messages." + i.String() + ".content." + j.String()
			}
			return true
		})
		return true
	})
	return path
}
