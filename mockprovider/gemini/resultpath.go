package gemini

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// resultPath is where the functionResponse part answering callID sits
// (contents.2.parts.0), or, where responses carry no id (Gemini 2.5),
// the latest for a function named name.
func resultPath(body []byte, callID, name string) string {
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
