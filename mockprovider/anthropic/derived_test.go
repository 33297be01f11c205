package anthropic

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// The conversation and the prompt size are made message by message, once
// per message (deriveParts). The functions below make them from the whole
// request, turn by turn, as they were made before; the tests check both
// ways agree.

// turnsFromGroups maps the merged turns to the conversation's turns.
func turnsFromGroups(r *Request) []conv.Turn {
	var turns []conv.Turn
	if len(r.Groups) > 0 {
		turns = make([]conv.Turn, 0, len(r.Groups))
	}
	for gi, g := range r.Groups {
		t := conv.Turn{Role: conv.Role(g.Role)}
		for bi, b := range g.Blocks {
			switch b.Type {
			case "text":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindText, Text: b.Text})
			case "thinking":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: b.Text, EncryptedContent: b.Signature}})
			case "redacted_thinking":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{EncryptedContent: b.Signature, Redacted: true}})
			case "image", "document":
				media := b.Media
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindMedia, Media: &media})
			case "tool_use":
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: b.ID, Name: b.Name, Arguments: arguments(b.Input)}})
			case "tool_result":
				res := &conv.Result{CallID: b.ToolUseID, Name: groupCallName(r, gi, bi, b.ToolUseID), IsError: strings.TrimSpace(string(b.IsError)) == "true"}
				if b.ResultHasItems {
					for _, it := range b.ResultItems {
						res.Content = append(res.Content, it.Content)
					}
				} else if b.ResultText != "" {
					res.Content = []conv.Content{{Type: conv.ContentText, Text: b.ResultText}}
				}
				t.Parts = append(t.Parts, conv.Part{Kind: conv.KindResult, Result: res})
			}
		}
		turns = append(turns, t)
	}
	return turns
}

// groupCallName is the name of the last tool_use with id before block bi
// of group gi.
func groupCallName(r *Request, gi, bi int, id string) string {
	for ; gi >= 0; gi-- {
		blocks := r.Groups[gi].Blocks
		if bi < 0 || bi > len(blocks) {
			bi = len(blocks)
		}
		for k := bi - 1; k >= 0; k-- {
			if blocks[k].Type == "tool_use" && blocks[k].ID == id {
				return blocks[k].Name
			}
		}
		bi = -1
	}
	return ""
}

func promptSizeFromBlocks(r *Request) int {
	n := len(r.System)
	r.blocks(func(b *Block) { n += blockSize(b) })
	for i := range r.Tools {
		n += toolSize(&r.Tools[i])
	}
	return n
}

// derivedBodies are requests whose turns merge messages, skip system
// messages, or name results after calls in the same or an earlier turn.
var derivedBodies = []json.RawMessage{
	body(msgs(askWeather, assistant(callA), user(resultA))),
	body(msgs(askWeather, assistant(callA, callB), user(resultB, resultA, thanks))),
	body(msgs(askWeather, assistant(callA), assistant(callB), user(resultA), user(resultB))),
	body(msgs(askWeather, assistant(callA), `{"role":"system","content":"Be brief."}`, user(resultA))),
	body(msgs(askWeather, `{"role":"system","content":[`+callB+`]}`, assistant(callA), user(resultA, resultB))),
	body(msgs(askWeather, assistant(callA), user(resultA), assistant(`{"type":"tool_use","id":"toolu_01A","name":"get_time","input":{}}`), user(resultA))),
	body(msgs(user(resultA), assistant(callA), user(resultA))),
	body(msgs(user(callA, resultA), `{"role":"user","content":[]}`, `{"role":"assistant","content":""}`, user(resultA))),
	body(msgs(askWeather, assistant(`{"type":"thinking","thinking":"t","signature":"s"}`, `{"type":"redacted_thinking","data":"d"}`, callA),
		user(`{"type":"tool_result","tool_use_id":"toolu_01A","is_error":true,"content":[{"type":"text","text":"no"},{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}`,
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}`,
			`{"type":"document","source":{"type":"text","media_type":"text/plain","data":"doc"}}`))),
	body(msgs(askWeather, assistant(`{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":null}`, `{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":"x"}`), user(resultA, resultB))),
}

func TestDerivedPartsMatchTurns(t *testing.T) {
	var bodies []json.RawMessage
	bodies = append(bodies, derivedBodies...)
	for _, c := range RuleCases() {
		bodies = append(bodies, c.Bad, c.Good)
	}
	checked := 0
	for _, b := range bodies {
		req, err := decodeRequest(b, false, false)
		if err != nil {
			continue
		}
		checked++
		if got, want := req.conversation().Turns, turnsFromGroups(req); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nturns from the messages' parts %+v\nfrom the merged turns %+v", b, got, want)
		}
		if got, want := req.promptSize(), promptSizeFromBlocks(req); got != want {
			t.Errorf("%s: prompt size %d from the messages, %d from the blocks", b, got, want)
		}
	}
	if checked < len(derivedBodies) {
		t.Fatalf("only %d of the bodies decode", checked)
	}
}
