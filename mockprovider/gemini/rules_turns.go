package gemini

import (
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The conversation's turns: roles, call turns after user turns, responses
// right after their call turn, as many as the calls, in their order.

// Verbatim texts of the API (each rule's references say where seen).
const (
	MsgRoleClassic       = "Please use a valid role: user, model."
	msgRoleV36Format     = "Role '%s' is not supported. Please use a valid role: SYSTEM, SYSTEM_1, USER, ASSISTANT, DEVELOPER, CONTEXT, USER_CONTEXT, MODEL, USER."
	MsgResponseCount     = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
	MsgResponseAfterCall = "Please ensure that function response turn comes immediately after a function call turn."
	MsgCallAfterUser     = "Please ensure that function call turn comes immediately after a user turn or after a function response turn."
	MsgCallTurnMixed     = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts."
)

// Texts no public source shows, worded in Google's style (their
// references mark them inferred).
const (
	msgResponseOrder    = "Please ensure that the function response parts are in the same order as the function call parts of the function call turn."
	msgResponseOrderIDs = "The function response parts are not in the order of the function call parts. Every response names its call's id, so they can be paired, but answering in call order is advised."
	msgResponseIDFormat = "Please ensure that each function response part echoes the id of its function call part: function call `%s` has id '%s' but its function response has id '%s'."
)

func turnRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: "gemini.valid-role", Level: rules.MUST, Family: "ordering", Option: "--gemini-role-message",
		Summary: "Content roles are only user or model; function responses travel in user turns.",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: "Content.Role: user or model"},
			{URL: "https://github.com/memex-lab/dart_agent_core/issues/34", Quote: "v3.6 text"},
		},
		Cases: []rules.Case{{
			Name: "function response in a 'tool' turn (as older docs showed)", Path: path25,
			Bad:        body(weatherFn, userAsk, callParis, strings.Replace(sunnyReply, `"role":"user"`, `"role":"tool"`, 1)),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: 400, WantMessage: MsgRoleClassic,
		}},
	}, checkRoles)

	s.Add(rules.Rule{ID: "gemini.call-turn-not-mixed", Level: rules.MUST, Family: "ordering",
		Summary: "A content does not mix functionCall and functionResponse parts.",
		Refs:    []rules.Ref{{URL: "https://github.com/googleapis/python-genai/issues/81"}},
		Cases: []rules.Case{{
			Name: "call and response merged into one content", Path: path25,
			Bad: body(weatherFn, userAsk,
				`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}},{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`),
			Good:       body(weatherFn, userAsk, callParis, sunnyReply),
			WantStatus: 400, WantMessage: MsgCallTurnMixed,
		}},
	}, checkMixed)

	s.Add(rules.Rule{ID: "gemini.function-response-after-call", Level: rules.MUST, Family: "ordering",
		Summary: "A function response turn comes immediately after a function call turn (consecutive user contents after the call turn count as one turn).",
		Refs: []rules.Ref{
			{URL: refFunctionCalling, Quote: "a function response turn follows the call turn"},
			{URL: "testdata/corpus/crewai.jsonl", Quote: "TestGeminiNativeToolCalling parallel cassettes #2: gemini-2.5-flash accepts responses spread over consecutive user contents"},
		},
		Cases: []rules.Case{
			{
				Name: "response without the call turn before it", Path: path25,
				Bad:        body(weatherFn, userAsk, sunnyReply),
				Good:       body(weatherFn, userAsk, callParis, sunnyReply),
				WantStatus: 400, WantMessage: MsgResponseAfterCall,
			},
			{
				Name: "second response content after a model text turn (consecutive user contents after the call turn: accepted)", Path: path25,
				Bad:        body(weatherFn, userAsk, callParis, `{"role":"model","parts":[{"text":"Let me check."}]}`, sunnyReply),
				Good:       body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), sunnyReply, sunnyReply),
				WantStatus: 400, WantMessage: MsgResponseAfterCall,
			},
		},
	}, checkResponseAfterCall)

	s.Add(rules.Rule{ID: "gemini.function-call-after-user", Level: rules.MUST, Family: "ordering",
		Summary: "A function call turn comes immediately after a user turn, a function response turn, or another function call turn of the model (steps answered together).",
		Refs: []rules.Ref{
			{URL: "https://github.com/google-gemini/gemini-cli/issues/11814"},
			{Quote: "consecutive call turns accepted", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name: "history starting with a function call", Path: path25,
				Bad:        body(weatherFn, callParis, sunnyReply),
				Good:       body(weatherFn, userAsk, callParis, sunnyReply),
				WantStatus: 400, WantMessage: MsgCallAfterUser,
			},
			{
				Name: "call turn after a model text turn", Path: path25,
				Bad:        body(weatherFn, userAsk, `{"role":"model","parts":[{"text":"Let me check."}]}`, callParis, sunnyReply),
				Good:       body(weatherFn, userAsk, `{"role":"model","parts":[{"text":"Let me check."},{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`, sunnyReply),
				WantStatus: 400, WantMessage: MsgCallAfterUser,
			},
		},
	}, checkCallAfterUser)

	s.Add(rules.Rule{ID: "gemini.function-response-count", Level: rules.MUST, Family: "pairing",
		Summary: "A function response turn answers every call of the preceding function call turn (consecutive call turns of the model counted as one, and the consecutive user contents that follow it up to the next model turn counted as one): as many responses as calls.",
		Refs: []rules.Ref{
			{URL: "https://github.com/google-gemini/gemini-cli/issues/4504", Quote: `"` + MsgResponseCount + `"`},
			{URL: "https://github.com/microsoft/vscode/issues/299295", Quote: "the same message"},
			{URL: "testdata/corpus/crewai.jsonl", Quote: "TestGeminiNativeToolCalling parallel cassettes #2: three calls answered by three consecutive user contents accepted"},
		},
		Cases: []rules.Case{
			{
				Name: "two parallel calls, one response", Path: path25,
				Bad: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""),
					`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`),
				Good:       body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), twoResponses("get_weather", "get_weather")),
				WantStatus: 400, WantMessage: MsgResponseCount,
			},
			{
				Name: "two call turns of the model, one response (both answered together: accepted)", Path: path25,
				Bad: body(weatherFn, userAsk, callParis, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
					`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`),
				Good: body(weatherFn, userAsk, callParis, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
					twoResponses("get_weather", "get_weather")),
				WantStatus: 400, WantMessage: MsgResponseCount,
			},
			{
				// crewAI records gemini-2.5-flash accepting three calls answered by
				// three consecutive user contents (testdata/corpus/crewai.jsonl,
				// TestGeminiNativeToolCalling parallel cassettes #2).
				Name: "two parallel calls, responses in two consecutive user contents, one missing", Path: path25,
				Bad: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), sunnyReply,
					`{"role":"user","parts":[{"text":"Go on."}]}`),
				Good: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", ""), sunnyReply, sunnyReply,
					`{"role":"user","parts":[{"text":"Go on."}]}`),
				WantStatus: 400, WantMessage: MsgResponseCount,
			},
		},
	}, checkResponseCount)

	s.Add(rules.Rule{ID: "gemini.function-response-order", Level: rules.SHOULD, Family: "ordering",
		Summary: "The responses to a parallel batch should come in call order, matched by name (journaled: no public source shows the API refusing a reordered batch).",
		Refs: []rules.Ref{
			{URL: refFunctionCalling, Quote: "responses in the order of the calls"},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "parallel responses out of call order", Path: path25,
			Bad:  body(weatherFn, userAsk, twoCalls("get_weather", "get_time", ""), twoResponses("get_time", "get_weather")),
			Good: body(weatherFn, userAsk, twoCalls("get_weather", "get_time", ""), twoResponses("get_weather", "get_time")),
		}},
	}, checkResponseOrder)

	s.Add(rules.Rule{ID: "gemini.function-response-order-ids", Level: rules.SHOULD, Family: "ordering",
		Summary: "Responses that each name their call's id may come in another order than the calls; keeping the call order is still advised.",
		Refs: []rules.Ref{
			{URL: refFunctionCalling, Quote: "responses in the order of the calls"},
			{Quote: "no public source shows the API rejecting a reordered batch whose responses carry the calls' ids", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "parallel responses out of call order, each naming its call's id", Path: path3,
			Bad:  body(weatherFn, userAsk, idCalls(bypassSignatures[1], "c1", "c2"), idResponses("c2", "c1")),
			Good: body(weatherFn, userAsk, idCalls(bypassSignatures[1], "c1", "c2"), idResponses("c1", "c2")),
		}},
	}, checkResponseOrderByID)

	s.Add(rules.Rule{ID: "gemini.function-response-id", Level: rules.SHOULD, Family: "pairing",
		Summary: "A functionResponse should echo the id of its functionCall when the call had one (journaled: no public source shows the API refusing another id).",
		Refs: []rules.Ref{
			{URL: refTypes, Quote: "FunctionResponse.ID echoes FunctionCall.ID"},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "response id differs from the call id", Path: path25,
			Bad: body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"id":"tool_0","name":"get_weather","args":{"city":"Paris"}}}]}`,
				`{"role":"user","parts":[{"functionResponse":{"id":"tool_1","name":"get_weather","response":{"output":"sunny"}}}]}`),
			Good: body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"id":"tool_0","name":"get_weather","args":{"city":"Paris"}}}]}`,
				`{"role":"user","parts":[{"functionResponse":{"id":"tool_0","name":"get_weather","response":{"output":"sunny"}}}]}`),
		}},
	}, checkResponseID)
}

// idCalls is a model turn calling get_weather twice with the given ids;
// sig signs the first call.
func idCalls(sig, a, b string) string {
	return `{"role":"model","parts":[{"functionCall":{"id":"` + a + `","name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + sig +
		`"},{"functionCall":{"id":"` + b + `","name":"get_weather","args":{"city":"Rome"}}}]}`
}

// idResponses answers idCalls' calls in the order of the ids given.
func idResponses(a, b string) string {
	return `{"role":"user","parts":[{"functionResponse":{"id":"` + a + `","name":"get_weather","response":{"output":"` + a + `"}}},{"functionResponse":{"id":"` + b + `","name":"get_weather","response":{"output":"` + b + `"}}}]}`
}

func checkRoles(r *Request, env *rules.Env) []rules.Violation {
	var out []rules.Violation
	for i, c := range r.Contents {
		// An empty role is read as user, as the API does for single turns.
		if c.Role == "" || c.Role == roleUser || c.Role == roleModel {
			continue
		}
		msg := MsgRoleClassic
		if options(env).GeminiRoleMessage == "v3.6" {
			msg = fmt.Sprintf(msgRoleV36Format, c.Role)
		}
		out = append(out, turnBreach(i, fmt.Sprintf("contents[%d].role", i), msg))
	}
	return out
}

func checkMixed(r *Request, _ *rules.Env) []rules.Violation {
	shapes := r.contentShapes()
	var out []rules.Violation
	for i := range r.Contents {
		if shapes[i].isMixed() {
			out = append(out, turnBreach(i, fmt.Sprintf("contents[%d]", i), MsgCallTurnMixed))
		}
	}
	return out
}

// checkResponseAfterCall: a function response belongs to the user
// contents that follow a call turn, up to the next model turn (the API
// reads consecutive user contents as one turn).
func checkResponseAfterCall(r *Request, _ *rules.Env) []rules.Violation {
	shapes := r.contentShapes()
	var out []rules.Violation
	afterCall := false
	for i := range r.Contents {
		shape := &shapes[i]
		switch {
		case shape.isCallTurn():
			afterCall = true
		case r.Contents[i].Role == roleModel:
			afterCall = false
		case shape.isResponseTurn() && !afterCall:
			out = append(out, turnBreach(i, fmt.Sprintf("contents[%d]", i), MsgResponseAfterCall))
		}
	}
	return out
}

func checkCallAfterUser(r *Request, _ *rules.Env) []rules.Violation {
	shapes := r.contentShapes()
	var out []rules.Violation
	for i := range r.Contents {
		if shape := &shapes[i]; !shape.isCallTurn() || shape.isMixed() {
			continue
		}
		if i == 0 {
			out = append(out, turnBreach(i, fmt.Sprintf("contents[%d]", i), MsgCallAfterUser))
			continue
		}
		prevRole, prev := r.Contents[i-1].Role, &shapes[i-1]
		if prevRole == roleModel && prev.isCallTurn() && !prev.isMixed() {
			continue // the call turn goes on: its steps answered together
		}
		if prevRole == roleModel || prev.isCallTurn() {
			out = append(out, turnBreach(i, fmt.Sprintf("contents[%d]", i), MsgCallAfterUser))
		}
	}
	return out
}

// answeredPairs yields each call turn answered by the user contents that
// follow it up to the next model turn (the answer run), with the parts of
// both. Consecutive call turns of the model are one call turn whose steps
// one run answers together (their calls in order); consecutive user
// contents are one turn, so a run may spread its responses over several
// contents. Every request walks the pairs (pairingOf), so a single
// content's parts are not copied (callResponsePairs zips the parts) and
// the contents' kinds are read from their shapes, counted once.
func answeredPairs(r *Request, visit func(run answerRun, callParts, responseParts []Part)) {
	shapes := r.contentShapes()
	for i := 1; i < len(r.Contents); i++ {
		if prev := &shapes[i-1]; shapes[i].isCallTurn() || !prev.isCallTurn() || prev.isMixed() {
			continue
		}
		end := i + 1
		for end < len(r.Contents) && r.Contents[end].Role != roleModel && !shapes[end].isCallTurn() {
			end++
		}
		run := answerRun{contents: r.Contents[i:end], start: i, first: -1}
		responseParts := r.Contents[i].Parts
		if end > i+1 {
			responseParts = nil
			for _, u := range run.contents {
				responseParts = append(responseParts, u.Parts...)
			}
		}
		for k := i; k < end; k++ {
			shape := &shapes[k]
			if run.first < 0 && shape.isResponseTurn() {
				run.first = k
			}
			run.responses += shape.responses
		}
		i = end - 1
		if run.first < 0 {
			continue // unanswered: nothing to pair
		}
		first := run.start - 1
		for first > 0 && r.Contents[first-1].Role == roleModel {
			if shape := &shapes[first-1]; !shape.isCallTurn() || shape.isMixed() {
				break
			}
			first--
		}
		callParts := r.Contents[first].Parts
		if first < run.start-1 {
			callParts = nil
			for _, step := range r.Contents[first:run.start] {
				callParts = append(callParts, step.Parts...)
			}
		}
		for k := first; k < run.start; k++ {
			shape := &shapes[k]
			run.calls += shape.calls
			run.callsWithoutID += shape.callsWithoutID
		}
		visit(run, callParts, responseParts)
	}
}

// answerRun is the user contents answering one call turn: contents[start:]
// of the request, the first of them with a function response at first.
type answerRun struct {
	contents     []Content
	start, first int
	// calls and responses count the functionCall parts of the call turn
	// and the functionResponse parts of the run.
	calls, responses int
	callsWithoutID   int // calls with no id
}

// answersAll reports whether the run has as many responses as its call
// turn has calls.
func (run answerRun) answersAll() bool { return run.calls == run.responses }

// locate maps the k-th part of the run's joined parts to its content and
// part index in the request.
func (run answerRun) locate(k int) (content, part int) {
	for j, c := range run.contents {
		if k < len(c.Parts) {
			return run.start + j, k
		}
		k -= len(c.Parts)
	}
	return run.start, k
}

// callResponsePairs walks the k-th functionCall part of callParts
// together with the k-th functionResponse part of responseParts.
type callResponsePairs struct {
	callParts, responseParts []Part
	call, response           int // index of the current pair's parts
}

func pairsOf(callParts, responseParts []Part) callResponsePairs {
	return callResponsePairs{callParts: callParts, responseParts: responseParts, call: -1, response: -1}
}

// next moves to the next pair; false when either side has run out.
func (z *callResponsePairs) next() bool {
	z.call = nextPart(z.callParts, z.call, func(p *Part) bool { return p.FunctionCall != nil })
	z.response = nextPart(z.responseParts, z.response, func(p *Part) bool { return p.FunctionResponse != nil })
	return z.call < len(z.callParts) && z.response < len(z.responseParts)
}

func (z *callResponsePairs) pair() (*FunctionCall, *FunctionResponse) {
	return z.callParts[z.call].FunctionCall, z.responseParts[z.response].FunctionResponse
}

// nextPart is the index of the first part after from that matches, or
// len(parts).
func nextPart(parts []Part, from int, match func(*Part) bool) int {
	i := from + 1
	for i < len(parts) && !match(&parts[i]) {
		i++
	}
	return i
}

// pairingVerdicts are the violations of the four rules that read the
// answered runs (function-response-count, -order, -order-ids, -id). Each
// rule walked every run of the conversation on every request; one walk,
// made when the request is decoded, gives all four, and each rule reads
// its share.
type pairingVerdicts struct {
	count, order, orderByID, id []rules.Violation
}

func pairingOf(r *Request) *pairingVerdicts {
	v := new(pairingVerdicts)
	answeredPairs(r, func(run answerRun, callParts, responseParts []Part) {
		if !run.answersAll() {
			v.count = append(v.count, turnBreach(run.first, fmt.Sprintf("contents[%d]", run.first), MsgResponseCount))
			return
		}
		byID := run.matchedByID(callParts, responseParts)
		orderDone := false
		for z := pairsOf(callParts, responseParts); z.next(); {
			fc, fr := z.pair()
			if !orderDone && !byID && fc.Name != fr.Name {
				orderDone = true
				at, part := run.locate(z.response)
				v.order = append(v.order, turnBreach(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.name", at, part), msgResponseOrder))
			}
			if !orderDone && byID && fc.ID != fr.ID {
				orderDone = true
				at, part := run.locate(z.response)
				v.orderByID = append(v.orderByID, turnBreach(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", at, part), msgResponseOrderIDs))
			}
			if !byID && run.callsWithoutID != run.calls && fc.ID != "" && fr.ID != fc.ID {
				at, part := run.locate(z.response)
				v.id = append(v.id, turnBreach(at, fmt.Sprintf("contents[%d].parts[%d].functionResponse.id", at, part),
					fmt.Sprintf(msgResponseIDFormat, fc.Name, fc.ID, fr.ID)))
			}
		}
	})
	return v
}

// pairing is the request's pairing verdicts (found now for a request
// built by hand).
func (r *Request) pairing() *pairingVerdicts {
	if r.paired != nil && len(r.shapes) == len(r.Contents) {
		return r.paired
	}
	return pairingOf(r)
}

func checkResponseCount(r *Request, _ *rules.Env) []rules.Violation { return r.pairing().count }

func checkResponseOrder(r *Request, _ *rules.Env) []rules.Violation { return r.pairing().order }

// matchedByID reports a batch whose calls all carry ids and whose
// responses name each of them once: the API can pair them in any order.
func (run answerRun) matchedByID(callParts, responseParts []Part) bool {
	if run.callsWithoutID > 0 {
		return false
	}
	ids := map[string]int{}
	for _, p := range callParts {
		if p.FunctionCall != nil {
			if p.FunctionCall.ID == "" {
				return false
			}
			ids[p.FunctionCall.ID]++
		}
	}
	for _, p := range responseParts {
		if p.FunctionResponse != nil {
			if ids[p.FunctionResponse.ID] == 0 {
				return false
			}
			ids[p.FunctionResponse.ID]--
		}
	}
	return true
}

// checkResponseOrderByID notes a batch answered out of call order whose
// responses all name their calls' ids.
func checkResponseOrderByID(r *Request, _ *rules.Env) []rules.Violation { return r.pairing().orderByID }

func checkResponseID(r *Request, _ *rules.Env) []rules.Violation { return r.pairing().id }
