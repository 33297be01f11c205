package gemini

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// shapeBodies are requests whose violations sit in early contents as
// well as late ones, beside every rule case's requests.
func shapeBodies() []json.RawMessage {
	var out []json.RawMessage
	for _, rc := range RuleCases() {
		out = append(out, rc.Bad, rc.Good)
	}
	emptyPart := `{"role":"user","parts":[{"text":"hi"},{}]}`
	notStructArgs := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":[1]}}]}`
	notStructResponse := `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":"sunny"}}]}`
	multimodal := `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"x"},"parts":[` + inline("image/png", "a.png") + `]}}]}`
	idCall := `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"get_weather","args":{}}}]}`
	otherID := `{"role":"user","parts":[{"functionResponse":{"id":"c9","name":"get_weather","response":{}}}]}`
	mixedIDs := `{"role":"model","parts":[{"functionCall":{"id":"c1","name":"get_weather","args":{}}},{"functionCall":{"name":"get_time","args":{}}}]}`
	twoAnswers := twoResponses("get_time", "get_weather")
	out = append(out,
		body(weatherFn, emptyPart, notStructArgs, notStructResponse, userAsk, callParis, multimodal, emptyPart, callParis, sunnyReply),
		body(weatherFn, userAsk, idCall, otherID, userAsk, mixedIDs, twoAnswers, userAsk, idCalls(bypassSignatures[1], "c1", "c2"), idResponses("c2", "c1")),
		body(weatherFn, userAsk, callParis, mixedIDs, twoAnswers, sunnyReply, callParis),
	)
	return out
}

// TestShapesOnlySkip: the shapes kept with each content only let rules
// pass over what cannot hold a violation. Every body gets the same
// violations as with shapes that send every rule through every part (as
// the rules read them before shapes were kept).
func TestShapesOnlySkip(t *testing.T) {
	seen := map[string]bool{}
	for _, model := range []string{"gemini-2.5-flash", "gemini-3-flash-preview"} {
		for _, b := range shapeBodies() {
			req, aerr := decodeBody(b, false)
			if aerr != nil {
				continue
			}
			req.Model, req.Method = model, methodGenerate
			env := &rules.Env{Options: rules.DefaultOptions()}
			got := rules.Run(ruleSet.Rules(), req, env)
			for _, v := range got {
				seen[v.Rule] = true
			}
			for i := range req.shapes {
				s := &req.shapes[i]
				s.emptyPart, s.multimodal, s.notStruct, s.callsWithoutID = true, true, true, 0
			}
			if want := rules.Run(ruleSet.Rules(), req, env); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s:\nwith shapes   %v\nwithout skips %v", model, b, got, want)
			}
		}
	}
	// Every rule a shape lets pass over contents is met.
	for _, id := range []string{"gemini.part-has-data", "gemini.function-call-args-object", "gemini.function-response-object",
		"gemini.multimodal-response-model", "gemini.function-response-id", "gemini.function-response-order-ids"} {
		if !seen[id] {
			t.Errorf("no body breaks %s", id)
		}
	}
}

// TestShapesKeptMatchFresh: a request resending contents a session kept
// (turns and shapes included) decides what it decides decoded whole,
// after itself and after another request.
func TestShapesKeptMatchFresh(t *testing.T) {
	bodies := shapeBodies()
	for i, b := range bodies {
		if n := resumed.Check(t, b, b); n == 0 && i >= len(bodies)-3 {
			t.Fatalf("nothing reused of %s", b)
		}
		resumed.Check(t, bodies[(i+1)%len(bodies)], b)
	}
}
