package openairesp

import "github.com/tidwall/gjson"

// resultPath is where the function_call_output answering callID sits
// (input.2).
func resultPath(body []byte, callID, _ string) string {
	path := ""
	gjson.GetBytes(body, "input").ForEach(func(i, it gjson.Result) bool {
		if it.Get("type").Str == "function_call_output" && it.Get("call_id").Str == callID {
			path = "input." + i.String()
		}
		return true
	})
	return path
}
