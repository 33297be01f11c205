package anthropic

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/resume/resumetest"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

const (
	ephemeral5m = `"cache_control":{"type":"ephemeral"}`
	ephemeral1h = `"cache_control":{"type":"ephemeral","ttl":"1h"}`
)

// cachedHead carries a system prompt long enough to be cached, with a
// 1h breakpoint, and a 5m breakpoint on the tool (too short to write).
var cachedHead = `"model":"claude-sonnet-4-5","max_tokens":1024,` +
	`"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}},` + ephemeral5m + `}],` +
	`"system":[{"type":"text","text":"` + strings.Repeat("Answer briefly. ", 300) + `",` + ephemeral1h + `}],`

// cachedRound is round i with cache_control members (each "" for none)
// on the assistant's text, its tool_use and the user's tool_result.
func cachedRound(i int, text, call, result string) []string {
	comma := func(s string) string {
		if s == "" {
			return ""
		}
		return "," + s
	}
	return []string{
		fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"checking %s"%s},{"type":"tool_use","id":"toolu_%d","name":"get_weather","input":{"city":"Paris %d"}%s}]}`,
			strings.Repeat("the weather ", 40), comma(text), i, i, comma(call)),
		fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":"sunny %d %s"%s}]}`,
			i, i, strings.Repeat("and mild ", 40), comma(result)),
	}
}

// cachedElems are rounds tool rounds with the breakpoints of round i
// given by marks(i) (nil: none).
func cachedElems(rounds int, marks func(i int) (text, call, result string)) []string {
	out := []string{`{"role":"user","content":"weather?"}`}
	for i := range rounds {
		var text, call, result string
		if marks != nil {
			text, call, result = marks(i)
		}
		out = append(out, cachedRound(i, text, call, result)...)
	}
	return out
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestResumedCacheMatchesFullDecode: requests with cache_control on
// their system prompt, tools and messages resume, and what a resumed
// request decides — its breakpoints, the cache's segments (sizes, ttls,
// prefix hashes), the usage a cold session answers, the violations — is
// what decoding it whole decides.
func TestResumedCacheMatchesFullDecode(t *testing.T) {
	// Kept messages carry a 5m breakpoint (round 1's result) and a 1h one
	// nested in a tool_result's content list (round 3).
	marks := func(i int) (string, string, string) {
		switch i {
		case 1:
			return "", "", ephemeral5m
		}
		return "", "", ""
	}
	base := cachedElems(5, marks)
	nested := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"text","text":"sunny","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]}`
	base[8] = nested
	body := messages.Body
	grow := func(text, call, result string) []string { return cat(base, cachedRound(5, text, call, result)) }
	resumed.Run(t, body(cachedHead, base, ``), []resumetest.Case{
		resumetest.C("grown, 5m breakpoint on the new last message", body(cachedHead, grow("", "", ephemeral5m), ``), true),
		resumetest.C("grown, 1h breakpoint on the new last message", body(cachedHead, grow("", "", ephemeral1h), ``), true),
		resumetest.C("grown, no new breakpoint", body(cachedHead, grow("", "", ""), ``), true),
		resumetest.C("too many breakpoints", body(cachedHead, grow(ephemeral5m, ephemeral1h, ephemeral5m), ``), true),
		resumetest.C("escaped name in the new message", body(cachedHead, grow("", "", `"cache\u005fcontrol":{"type":"ephemeral","ttl":"1h"}`), ``), true),
		resumetest.C("name only in a new text", body(cachedHead, cat(base, []string{`{"role":"user","content":"cache_control"}`}), ``), true),
		resumetest.C("automatic breakpoint after the array", body(cachedHead, grow("", "", ""), `,`+ephemeral1h), true),
		resumetest.C("kept breakpoint's ttl changed", body(cachedHead, cat(base[:4], cachedRound(1, "", "", ephemeral1h)[1:], base[5:]), ``), true),
		resumetest.C("kept breakpoint removed", body(cachedHead, cat(base[:4], cachedRound(1, "", "", "")[1:], base[5:]), ``), true),
		resumetest.C("shorter conversation", body(cachedHead, base[:7], ``), true),
		resumetest.C("system breakpoint removed", body(strings.Replace(cachedHead, ","+ephemeral1h+"}]", "}]", 1), grow("", "", ephemeral5m), ``), false),
		resumetest.C("cache_control of a wrong type in the new message", body(cachedHead, grow("", "", `"cache_control":{"type":"ephemeral","ttl":5}`), ``), true),
	})

	// A kept message whose name is spelled with an escape counts when
	// no other part of a later body spells it plainly.
	plain := messages.Head
	escaped := cachedElems(5, func(i int) (string, string, string) {
		if i == 2 {
			return `"cache_contro\u006c":{"type":"ephemeral"}`, "", ""
		}
		return "", "", ""
	})
	resumed.Run(t, body(plain, escaped, ``), []resumetest.Case{
		resumetest.C("grown after an escaped name", body(plain, cat(escaped, cachedRound(5, "", "", "")), ``), true),
		resumetest.C("grown after an escaped name, plain breakpoint", body(plain, cat(escaped, cachedRound(5, "", "", ephemeral5m)), ``), true),
	})
}

// TestResumedCacheUsageLoop: an agent loop with a 1h breakpoint on its
// system prompt and a 5m one on its last user message, from a cold
// session, then an earlier message changed and a shorter conversation.
// Each request's usage (cache reads and writes by ttl) and violations are
// the same whether the session resumes its decoding or every request is
// decoded whole; and the loop does read what it wrote.
func TestResumedCacheUsageLoop(t *testing.T) {
	var bodies [][]byte
	for rounds := range 12 {
		elems := cachedElems(rounds, func(i int) (string, string, string) {
			if i == rounds-1 {
				return "", "", ephemeral5m
			}
			return "", "", ""
		})
		if rounds > 7 {
			// Past the fourth breakpoint: the limit's violation.
			elems = cat(elems, []string{`{"role":"user","content":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}},{"type":"text","text":"c","cache_control":{"type":"ephemeral"}}]}`})
		}
		bodies = append(bodies, []byte(messages.Body(cachedHead, elems, ``)))
	}
	changed := cachedElems(9, func(i int) (string, string, string) {
		if i == 8 {
			return "", "", ephemeral1h
		}
		return "", "", ""
	})
	changed[3] = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"rain"}]}`
	bodies = append(bodies, []byte(messages.Body(cachedHead, changed, ``)), bodies[4])

	store := session.NewStore(session.DefaultLimits())
	resumedSession, wholeSession := store.Get("resumed"), store.Get("whole")
	var total cacheUse
	reused := 0
	for i, body := range bodies {
		reused += len(messagesKept.Begin(resumedSession, body).Reused)
		got, gotErr := decodeInSession(resumedSession, body, false, false)
		want, wantErr := decodeRequest(body, false, false)
		if gotErr != nil || wantErr != nil {
			t.Fatalf("request %d: %v / %v", i, gotErr, wantErr)
		}
		gotUse, wantUse := got.useCache(resumedSession), want.useCache(wholeSession)
		if gotUse != wantUse {
			t.Fatalf("request %d: resumed usage %+v, whole %+v", i, gotUse, wantUse)
		}
		env := &rules.Env{Options: rules.DefaultOptions()}
		if gv, wv := rules.Run(ruleSet.Rules(), got, env), rules.Run(ruleSet.Rules(), want, env); !reflect.DeepEqual(gv, wv) {
			t.Fatalf("request %d: resumed violations %+v, whole %+v", i, gv, wv)
		}
		total.read += gotUse.read
		total.created5m += gotUse.created5m
		total.created1h += gotUse.created1h
	}
	if reused == 0 || total.read == 0 || total.created5m == 0 || total.created1h == 0 {
		t.Fatalf("the loop tests little: %d messages reused, cache use %+v", reused, total)
	}
}

// TestCacheControlEscapedName: a member name spelled with JSON escapes
// is the same name (RFC 8259 §7), so breakpoints spelled that way count
// towards the limit, in a body that never spells the name plainly too.
func TestCacheControlEscapedName(t *testing.T) {
	escaped := `"cache\u005fcontrol":{"type":"ephemeral"}`
	elems := cachedElems(5, func(int) (string, string, string) { return "", "", escaped })
	req, err := decodeRequest([]byte(messages.Body(messages.Head, elems, ``)), false, false)
	if err != nil {
		t.Fatal(err)
	}
	v := rules.Run(ruleSet.Rules(), req, &rules.Env{Options: rules.DefaultOptions()})
	if req.CacheBreakpoints != 5 || len(v) != 1 || v[0].Rule != RuleCacheControlLimit {
		t.Fatalf("%d breakpoints, violations %+v", req.CacheBreakpoints, v)
	}
}
