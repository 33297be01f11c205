package mockprovider_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// isolationSessions is how many sessions run at once; each gets its own
// (scenario, dialect, way of choosing the scenario) combination.
const isolationSessions = 100

// plan is one session of the isolation test.
type plan struct {
	key      string
	sc       *scenario.Scenario
	dialect  conv.Dialect
	viaAdmin bool // scenario chosen through the admin API, else per request by header
}

// outcome is what a session saw over the wire.
type outcome struct {
	requests  int               // model requests sent
	ids       map[string]string // every id-like value minted for it → where
	responses []string          // stored Responses ids (previous_response_id)
	err       error
}

// isolationPlans pairs every built-in scenario with every dialect it
// supports, then with both ways of choosing it, until there are enough.
func isolationPlans(t *testing.T, set *scenario.Set) []plan {
	type combo struct {
		sc *scenario.Scenario
		d  conv.Dialect
	}
	var combos []combo
	for _, sc := range set.All() {
		for _, d := range conv.Dialects {
			if sc.Supports(d) {
				combos = append(combos, combo{sc, d})
			}
		}
	}
	if 2*len(combos) < isolationSessions {
		t.Fatalf("only %d scenario/dialect combinations: too few for %d distinct sessions", len(combos), isolationSessions)
	}
	out := make([]plan, isolationSessions)
	for i := range out {
		c := combos[i%len(combos)]
		out[i] = plan{key: fmt.Sprintf("iso-%03d-%s-%s", i, c.d, c.sc.Name), sc: c.sc, dialect: c.d, viaAdmin: (i+i/len(combos))%2 == 1}
	}
	return out
}

// TestSessionIsolation runs 100 sessions at once, each a different
// scenario/dialect mix driven through its multi-turn tool loop over raw
// HTTP, then checks that nothing leaked between them: each journal holds
// exactly its own requests (count, scenario, dialect), no minted id appears
// in two sessions, and one session's stored Responses cannot be continued
// from another.
func TestSessionIsolation(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	plans := isolationPlans(t, ts.Mock.Scenarios())
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: isolationSessions}}

	outcomes := make([]outcome, len(plans))
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = runLoop(client, ts.URL, p)
		}()
	}
	wg.Wait()

	owner := map[string]string{} // id → session that received it
	for i, p := range plans {
		o := outcomes[i]
		if o.err != nil {
			t.Errorf("%s: %v", p.key, o.err)
			continue
		}
		checkJournal(t, ts, p, o)
		for id, where := range o.ids {
			if other, ok := owner[id]; ok && other != p.key {
				t.Errorf("id %q (%s) was minted for both %s and %s", id, where, other, p.key)
			}
			owner[id] = p.key
		}
	}
	total := 0
	for _, o := range outcomes {
		total += o.requests
	}
	t.Logf("%d sessions, %d model requests, %d distinct minted ids", len(plans), total, len(owner))
	if t.Failed() {
		return
	}
	checkStoredResponsesStayPut(t, ts, client, plans, outcomes)
}

// checkJournal: the session's journal is its own requests and nothing else.
func checkJournal(t *testing.T, ts *mockprovider.TestServer, p plan, o outcome) {
	t.Helper()
	entries := ts.Journal(p.key)
	if len(entries) != o.requests {
		t.Errorf("%s: journal has %d entries, the session sent %d requests", p.key, len(entries), o.requests)
	}
	for i, e := range entries {
		if e.Dialect != p.dialect || e.Scenario != p.sc.Name || e.Status != http.StatusOK {
			t.Errorf("%s: entry %d is %s/%s status %d, want %s/%s 200", p.key, i, e.Dialect, e.Scenario, e.Status, p.dialect, p.sc.Name)
		}
		if e.Turn != i {
			t.Errorf("%s: entry %d answered scenario turn %d", p.key, i, e.Turn)
		}
		if len(e.Violations) > 0 {
			t.Errorf("%s: entry %d journaled violations %v", p.key, i, e.Violations)
		}
		if e.Seq != i+1 {
			t.Errorf("%s: entry %d has seq %d: another session's request interleaved", p.key, i, e.Seq)
		}
	}
}

// checkStoredResponsesStayPut continues every Responses session's last
// stored response from a different session's key: the real API scopes
// stored responses to the key (here, the session) and answers 400
// "Previous response with id '…' not found.". The owner can still continue
// it.
func checkStoredResponsesStayPut(t *testing.T, ts *mockprovider.TestServer, client *http.Client, plans []plan, outcomes []outcome) {
	t.Helper()
	var owners []int
	for i, p := range plans {
		if p.dialect == conv.OpenAIResponses && len(outcomes[i].responses) > 0 {
			owners = append(owners, i)
		}
	}
	if len(owners) < 2 {
		t.Fatalf("only %d Responses sessions stored responses: nothing to cross", len(owners))
	}
	for n, i := range owners {
		thief := plans[owners[(n+1)%len(owners)]]
		id := outcomes[i].responses[len(outcomes[i].responses)-1]
		body := map[string]any{"model": "gpt-4.1", "previous_response_id": id, "input": "and now?"}
		status, got, hdr, err := post(client, ts.URL+"/v1/responses", bearerHeaders(thief.key, ""), body)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Previous response with id '%s' not found.", id)
		msg, _ := dig(got, "error", "message").(string)
		if status != http.StatusBadRequest || msg != want {
			t.Errorf("%s continued %s's response %s: status %d, message %q (rule %q), want 400 %q", thief.key, plans[i].key, id, status, msg, hdr.Get("X-Toolwire-Rule"), want)
		}
		status, got, _, err = post(client, ts.URL+"/v1/responses", bearerHeaders(plans[i].key, ""), body)
		if err != nil {
			t.Fatal(err)
		}
		if status != http.StatusOK {
			t.Errorf("%s could not continue its own response %s: %d %v", plans[i].key, id, status, got)
		}
	}
}

// runLoop drives one session: choose the scenario, then answer every call
// the mock makes until it answers with text alone (or the scenario's turn
// budget runs out).
func runLoop(client *http.Client, base string, p plan) outcome {
	o := outcome{ids: map[string]string{}}
	scenarioHeader := p.sc.Name
	if p.viaAdmin {
		scenarioHeader = ""
		status, got, _, err := doJSON(client, http.MethodPut, base+"/_toolwire/sessions/"+p.key+"/scenario", nil, map[string]any{"name": p.sc.Name})
		if err != nil || status != http.StatusOK {
			o.err = fmt.Errorf("choosing scenario through the admin API: %d %v %v", status, got, err)
			return o
		}
	}
	d := newWireDriver(p, scenarioHeader)
	limit := len(p.sc.Turns) + 2
	for turn := 0; ; turn++ {
		if turn >= limit {
			o.err = fmt.Errorf("still calling tools after %d requests", turn)
			return o
		}
		url, headers, body := d.request()
		status, got, _, err := post(client, base+url, headers, body)
		o.requests++
		if err != nil {
			o.err = err
			return o
		}
		if status != http.StatusOK {
			o.err = fmt.Errorf("turn %d: status %d: %v", turn, status, got)
			return o
		}
		collectIDs(got, "", o.ids)
		if id, ok := got["id"].(string); ok && p.dialect == conv.OpenAIResponses {
			o.responses = append(o.responses, id)
		}
		if !d.answer(got) {
			return o
		}
	}
}

// wireDriver speaks one dialect's tool loop in raw JSON.
type wireDriver struct {
	p        plan
	scenario string // X-Toolwire-Scenario value, "" when chosen via admin
	history  []any  // messages / contents / input items so far
	prevID   string // Responses: previous_response_id
	pending  []any  // Responses: the function_call_output items to send
}

func newWireDriver(p plan, scenarioHeader string) *wireDriver {
	d := &wireDriver{p: p, scenario: scenarioHeader}
	prompt := p.sc.Prompt
	if prompt == "" {
		prompt = "Go."
	}
	switch p.dialect {
	case conv.OpenAIChat, conv.Anthropic:
		d.history = []any{map[string]any{"role": "user", "content": prompt}}
	case conv.OpenAIResponses:
		d.pending = []any{map[string]any{"role": "user", "content": prompt}}
	case conv.Gemini:
		d.history = []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": prompt}}}}
	case conv.Bedrock:
		d.history = []any{map[string]any{"role": "user", "content": []any{map[string]any{"text": prompt}}}}
	}
	return d
}

func (d *wireDriver) model(def string) string { return d.p.sc.Model(d.p.dialect, def) }

// parameters is a tool's schema, or the empty object schema.
func parameters(tool scenario.Tool) map[string]any {
	if tool.Parameters != nil {
		return tool.Parameters
	}
	return map[string]any{"type": "object", "properties": map[string]any{}}
}

// request is the next request of the loop.
func (d *wireDriver) request() (string, http.Header, map[string]any) {
	var tools []any
	switch d.p.dialect {
	case conv.OpenAIChat:
		for _, tool := range d.p.sc.Tools {
			fn := map[string]any{"name": tool.Name, "description": tool.Description, "parameters": parameters(tool)}
			if tool.Strict {
				fn["strict"] = true
			}
			tools = append(tools, map[string]any{"type": "function", "function": fn})
		}
		body := map[string]any{"model": d.model("gpt-4.1"), "messages": d.history}
		if len(tools) > 0 {
			body["tools"] = tools
		}
		return "/v1/chat/completions", bearerHeaders(d.p.key, d.scenario), body
	case conv.OpenAIResponses:
		for _, tool := range d.p.sc.Tools {
			tools = append(tools, map[string]any{"type": "function", "name": tool.Name, "description": tool.Description, "parameters": parameters(tool), "strict": tool.Strict})
		}
		body := map[string]any{"model": d.model("gpt-4.1"), "input": d.pending}
		if len(tools) > 0 {
			body["tools"] = tools
		}
		if d.prevID != "" {
			body["previous_response_id"] = d.prevID
		}
		return "/v1/responses", bearerHeaders(d.p.key, d.scenario), body
	case conv.Anthropic:
		for _, tool := range d.p.sc.Tools {
			tools = append(tools, map[string]any{"name": tool.Name, "description": tool.Description, "input_schema": parameters(tool)})
		}
		body := map[string]any{"model": d.model("claude-sonnet-4-5"), "max_tokens": 1024, "messages": d.history}
		if len(tools) > 0 {
			body["tools"] = tools
		}
		h := http.Header{}
		h.Set("x-api-key", d.p.key)
		h.Set("anthropic-version", "2023-06-01")
		setScenario(h, d.scenario)
		return "/v1/messages", h, body
	case conv.Bedrock:
		for _, tool := range d.p.sc.Tools {
			tools = append(tools, map[string]any{"toolSpec": map[string]any{"name": tool.Name, "description": tool.Description, "inputSchema": map[string]any{"json": parameters(tool)}}})
		}
		body := map[string]any{"messages": d.history}
		if len(tools) > 0 {
			body["toolConfig"] = map[string]any{"tools": tools}
		}
		h := http.Header{}
		bedrock.New().SetAuth(h, d.p.key)
		setScenario(h, d.scenario)
		return bedrock.New().Endpoint(d.model("us.anthropic.claude-haiku-4-5-20251001-v1:0"), false), h, body
	default: // Gemini
		var decls []any
		for _, tool := range d.p.sc.Tools {
			decls = append(decls, map[string]any{"name": tool.Name, "description": tool.Description, "parametersJsonSchema": parameters(tool)})
		}
		body := map[string]any{"contents": d.history}
		if len(decls) > 0 {
			body["tools"] = []any{map[string]any{"functionDeclarations": decls}}
		}
		h := http.Header{}
		h.Set("x-goog-api-key", d.p.key)
		setScenario(h, d.scenario)
		return "/v1beta/models/" + d.model("gemini-2.5-flash") + ":generateContent", h, body
	}
}

// toolOutput is what every tool "returns" in this test: the content does
// not matter to isolation, only that each call is answered.
func toolOutput(name string) string { return fmt.Sprintf(`{"tool":%q,"ok":true}`, name) }

// answer folds the reply into the history and answers its calls; it
// reports whether there were calls (so another request follows).
func (d *wireDriver) answer(got map[string]any) bool {
	switch d.p.dialect {
	case conv.OpenAIChat:
		msg, _ := dig(got, "choices", 0, "message").(map[string]any)
		calls, _ := msg["tool_calls"].([]any)
		if len(calls) == 0 {
			return false
		}
		d.history = append(d.history, msg)
		for _, c := range calls {
			id, _ := dig(c, "id").(string)
			name, _ := dig(c, "function", "name").(string)
			d.history = append(d.history, map[string]any{"role": "tool", "tool_call_id": id, "content": toolOutput(name)})
		}
		return true
	case conv.OpenAIResponses:
		d.prevID, _ = got["id"].(string)
		d.pending = nil
		output, _ := got["output"].([]any)
		for _, item := range output {
			if dig(item, "type") == "function_call" {
				callID, _ := dig(item, "call_id").(string)
				name, _ := dig(item, "name").(string)
				d.pending = append(d.pending, map[string]any{"type": "function_call_output", "call_id": callID, "output": toolOutput(name)})
			}
		}
		return len(d.pending) > 0
	case conv.Anthropic:
		content, _ := got["content"].([]any)
		var results []any
		for _, block := range content {
			if dig(block, "type") == "tool_use" {
				id, _ := dig(block, "id").(string)
				name, _ := dig(block, "name").(string)
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": id, "content": toolOutput(name)})
			}
		}
		if len(results) == 0 {
			return false
		}
		d.history = append(d.history, map[string]any{"role": "assistant", "content": content}, map[string]any{"role": "user", "content": results})
		return true
	case conv.Bedrock:
		msg, _ := dig(got, "output", "message").(map[string]any)
		content, _ := msg["content"].([]any)
		var results []any
		for _, block := range content {
			if use, ok := dig(block, "toolUse").(map[string]any); ok {
				results = append(results, map[string]any{"toolResult": map[string]any{"toolUseId": use["toolUseId"],
					"content": []any{map[string]any{"text": toolOutput(fmt.Sprint(use["name"]))}}}})
			}
		}
		if len(results) == 0 {
			return false
		}
		d.history = append(d.history, msg, map[string]any{"role": "user", "content": results})
		return true
	default: // Gemini: the model's content goes back verbatim, signatures included
		content, _ := dig(got, "candidates", 0, "content").(map[string]any)
		parts, _ := content["parts"].([]any)
		var results []any
		for _, part := range parts {
			if call, ok := dig(part, "functionCall").(map[string]any); ok {
				fr := map[string]any{"name": call["name"], "response": map[string]any{"output": toolOutput(fmt.Sprint(call["name"]))}}
				if id, ok := call["id"]; ok {
					fr["id"] = id
				}
				results = append(results, map[string]any{"functionResponse": fr})
			}
		}
		if len(results) == 0 {
			return false
		}
		d.history = append(d.history, content, map[string]any{"role": "user", "parts": results})
		return true
	}
}

func bearerHeaders(key, scenarioName string) http.Header {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+key)
	setScenario(h, scenarioName)
	return h
}

func setScenario(h http.Header, name string) {
	if name != "" {
		h.Set(mockprovider.ScenarioHeader, name)
	}
}

func post(client *http.Client, url string, h http.Header, body any) (int, map[string]any, http.Header, error) {
	return doJSON(client, http.MethodPost, url, h, body)
}

func doJSON(client *http.Client, method, url string, h http.Header, body any) (int, map[string]any, http.Header, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, nil, err
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(b))
	if err != nil {
		return 0, nil, nil, err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return resp.StatusCode, nil, resp.Header, fmt.Errorf("%s %s: status %d, body not a JSON object: %.200s", method, url, resp.StatusCode, raw)
	}
	return resp.StatusCode, out, resp.Header, nil
}

// dig walks decoded JSON by object keys and array indexes.
func dig(v any, path ...any) any {
	for _, step := range path {
		switch k := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// idKeys are the fields whose values the mock mints per session.
var idKeys = map[string]bool{"id": true, "call_id": true, "tool_use_id": true, "tool_call_id": true, "responseId": true, "thoughtSignature": true}

// collectIDs records every minted id in a decoded answer with its JSON path.
func collectIDs(v any, path string, into map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := x[k].(string); ok && idKeys[k] && len(s) >= 8 && !strings.Contains(s, " ") {
				into[s] = path + "." + k
				continue
			}
			collectIDs(x[k], path+"."+k, into)
		}
	case []any:
		for i, e := range x {
			collectIDs(e, fmt.Sprintf("%s[%d]", path, i), into)
		}
	}
}
