package anthropic_test

import (
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
)

// TestBreachesInTheAPIsOrder: a request breaking several rules is answered
// with the breach the API meets first. A request-level breach comes before
// any in the messages; inside the conversation an earlier message's breach
// comes first, whatever its kind; breaches at one place come in the order
// the topics are declared. Under --lenient every breach is journaled, in
// that order.
func TestBreachesInTheAPIsOrder(t *testing.T) {
	const (
		ask  = `{"role":"user","content":"What's the weather in Paris?"}`
		call = `{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"location":"Paris"}}`
		res  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"18C"}]}`
		tool = `"tools":[{"name":"get_weather","input_schema":{"type":"object"}}]`
	)
	msgs := func(m ...string) string { return `"messages":[` + strings.Join(m, ",") + `]` }
	for _, tc := range []struct {
		name   string
		strict bool
		body   string
		want   []string
	}{
		{
			name: "a tool name and a thinking budget, both request-level: the tools first",
			body: `{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":512},"tools":[{"name":"weather.get","input_schema":{"type":"object"}}],` + msgs(ask) + `}`,
			want: []string{anthropic.RuleToolNamePattern, anthropic.RuleThinkingBudgetMinimum},
		},
		{
			name: "text after a call, answered in message 2, and a string input in message 3: message 2 first",
			body: `{"model":"claude-haiku-4-5","max_tokens":1024,` + tool + `,` + msgs(ask,
				`{"role":"assistant","content":[`+call+`,{"type":"text","text":"Checking."}]}`, res,
				`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":"Rome"}]}`) + `}`,
			want: []string{anthropic.RuleNoContentAfterToolUse, anthropic.RuleToolUseInputObject},
		},
		{
			name: "an empty text block opening the thinking turn: text blocks before thinking",
			body: `{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":1024},` + tool + `,` + msgs(ask,
				`{"role":"assistant","content":[{"type":"text","text":""},`+call+`]}`, res) + `}`,
			want: []string{anthropic.RuleNonEmptyTextBlock, anthropic.RuleThinkingBlockFirst},
		},
		{
			name:   "an empty assistant message first, under --strict-roles: the role before the content",
			strict: true,
			body:   `{"model":"claude-haiku-4-5","max_tokens":1024,` + msgs(`{"role":"assistant","content":[]}`, ask) + `}`,
			want:   []string{anthropic.RuleStrictFirstUser, anthropic.RuleNonEmptyContent},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := rules.DefaultOptions()
			o.StrictRoles = tc.strict
			for _, lenient := range []bool{false, true} {
				o.Lenient = lenient
				ts := newServer(t, mockprovider.Options{Rules: o})
				key := "order-" + tc.name
				status, h, resp := ruletest.Post(t, ts, conv.Anthropic, "/v1/messages", key, nil, []byte(tc.body))
				if lenient {
					var got []string
					for _, v := range ts.Violations(key) {
						got = append(got, v.Rule)
					}
					if strings.Join(got, " ") != strings.Join(tc.want, " ") {
						t.Errorf("journaled %v, want %v", got, tc.want)
					}
				} else if status != 400 || h.Get("X-Toolwire-Rule") != tc.want[0] {
					t.Errorf("answered %d %s, want 400 %s: %s", status, h.Get("X-Toolwire-Rule"), tc.want[0], resp)
				}
			}
		})
	}
}
