package gemini_test

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// TestBreachesInTheAPIsOrder: a request breaking several rules is answered
// with the breach the API meets first: JSON parsing, then the parsed
// request's members, then the turns in order; breaches of one phase at one
// place come in the order the topics are declared. Under --lenient every
// breach is journaled, in that order.
func TestBreachesInTheAPIsOrder(t *testing.T) {
	const (
		path     = "/v1beta/models/gemini-2.5-flash:generateContent"
		badName  = `{"functionDeclarations":[{"name":"get weather","parameters":{"type":"OBJECT"}}]}`
		call     = `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`
		stringed = `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":"sunny"}}]}`
	)
	for _, tc := range []struct {
		name string
		body string
		want []string
	}{
		{
			name: "a call turn first, a bad function name, a response that is a string: parse, members, turns",
			body: `{"tools":[` + badName + `],"contents":[` + call + `,` + stringed + `]}`,
			want: []string{"gemini.function-response-object", "gemini.function-name-valid", "gemini.function-call-after-user"},
		},
		{
			name: "no contents and a bad function name, both members: contents first",
			body: `{"tools":[` + badName + `],"contents":[]}`,
			want: []string{"gemini.contents-required", "gemini.function-name-valid"},
		},
		{
			name: "a tool turn, then a mixed content: the earlier turn first",
			body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"tool","parts":[{"text":"x"}]},` +
				`{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionResponse":{"name":"f","response":{}}}]}]}`,
			want: []string{"gemini.valid-role", "gemini.call-turn-not-mixed"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, lenient := range []bool{false, true} {
				ts := newServer(t, optionsWith(func(o *rules.Options) { o.Lenient = lenient }))
				key := "order-" + tc.name
				resp, b := postRaw(t, ts, path, key, []byte(tc.body), nil)
				if lenient {
					var got []string
					for _, v := range ts.Violations(key) {
						got = append(got, v.Rule)
					}
					if strings.Join(got, " ") != strings.Join(tc.want, " ") {
						t.Errorf("journaled %v, want %v", got, tc.want)
					}
				} else if resp.StatusCode != 400 || resp.Header.Get("X-Toolwire-Rule") != tc.want[0] {
					t.Errorf("answered %d %s, want 400 %s: %s", resp.StatusCode, resp.Header.Get("X-Toolwire-Rule"), tc.want[0], b)
				}
			}
		})
	}
}
