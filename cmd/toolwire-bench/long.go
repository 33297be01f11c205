package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Long conversations: an agent's tool loop sends its whole history with
// every request, so a load test's requests grow with every round. Here
// each dialect's request carries a given number of earlier tool rounds
// (an assistant turn calling a tool, then the tool's result) and is
// measured against the baseline process reading the very same body —
// same path, headers and bytes — and answering its small fixed reply:
// the ratio is what the mock costs per request of that size beyond
// reading it.
//
// A load test's agent posts a growing conversation in one session; here
// every worker posts the same long request again and again in its own
// session, so each run measures one size.

// longTools are the tools a coding agent might declare: the history calls
// them in turn.
var longTools = []struct{ name, description, schema string }{
	{"read_file", "Read a file of the repository, a window of lines at a time", `{"type":"object","properties":{"path":{"type":"string","description":"Path relative to the repository root"},"offset":{"type":"integer","description":"First line, from 0"},"limit":{"type":"integer","description":"Lines to read"}},"required":["path","offset","limit"],"additionalProperties":false}`},
	{"search_code", "Search the repository for a regular expression", `{"type":"object","properties":{"pattern":{"type":"string","description":"RE2 regular expression"},"glob":{"type":"string","description":"Files to search, as a glob"}},"required":["pattern","glob"],"additionalProperties":false}`},
	{"run_tests", "Run the tests of one package", `{"type":"object","properties":{"package":{"type":"string","description":"Go package path"},"run":{"type":"string","description":"Test name pattern"}},"required":["package","run"],"additionalProperties":false}`},
}

const (
	longSystem   = "You are a careful coding agent. Use the tools to read and search the repository and to run tests; answer with a short summary once the task is done."
	longQuestion = "Find why TestRetryBudget is flaky in the scheduler package and propose a fix."
)

// longCall is round i's tool call: its tool and JSON arguments.
func longCall(i int) (name string, args map[string]any) {
	switch i % len(longTools) {
	case 0:
		return "read_file", map[string]any{"path": fmt.Sprintf("internal/scheduler/retry_%03d.go", i), "offset": 40 * (i % 7), "limit": 40}
	case 1:
		return "search_code", map[string]any{"pattern": fmt.Sprintf(`retryBudget\.(Take|Give)\(%d\)`, i), "glob": "internal/**/*.go"}
	default:
		return "run_tests", map[string]any{"package": "./internal/scheduler", "run": fmt.Sprintf("TestRetryBudget/case_%d", i)}
	}
}

// longResult is round i's tool output: about 330 bytes, the size of a
// short file window or a few search hits, so that a Chat request with 400
// rounds is about 234 KB, as measured in issue 21.
func longResult(i int) string {
	b, _ := json.Marshal(map[string]any{
		"ok":    true,
		"round": i,
		"lines": []string{"func (b *retryBudget) Take(n int) bool {", "\tb.mu.Lock()", "\tdefer b.mu.Unlock()", "\tif b.left < n {", "\t\treturn false", "\t}", "\tb.left -= n", "\treturn true", "}"},
		"note":  fmt.Sprintf("internal/scheduler/retry_%03d.go: 9 of 212 lines; refilled by a ticker every 50ms", i),
	})
	return string(b)
}

func callID(d conv.Dialect, i int) string {
	if d == conv.Anthropic {
		return fmt.Sprintf("toolu_%04d", i)
	}
	return fmt.Sprintf("call_%04d", i)
}

// longBody is d's request carrying rounds earlier tool rounds: the
// system prompt and question, then rounds calls each followed by its
// result, so that the model's next move is due. It is built from values
// (not text) so that every string is quoted as an SDK would.
func longBody(d conv.Dialect, rounds int) []byte {
	type obj = map[string]any
	argsJSON := func(a map[string]any) string { b, _ := json.Marshal(a); return string(b) }
	var body obj
	switch d {
	case conv.OpenAIChat:
		var tools []obj
		for _, t := range longTools {
			tools = append(tools, obj{"type": "function", "function": obj{"name": t.name, "description": t.description, "parameters": json.RawMessage(t.schema)}})
		}
		msgs := []obj{{"role": "system", "content": longSystem}, {"role": "user", "content": longQuestion}}
		for i := range rounds {
			name, args := longCall(i)
			msgs = append(msgs,
				obj{"role": "assistant", "content": nil, "tool_calls": []obj{{"id": callID(d, i), "type": "function", "function": obj{"name": name, "arguments": argsJSON(args)}}}},
				obj{"role": "tool", "tool_call_id": callID(d, i), "content": longResult(i)})
		}
		body = obj{"model": "gpt-4.1", "stream": false, "tools": tools, "messages": msgs}
	case conv.OpenAIResponses:
		var tools []obj
		for _, t := range longTools {
			tools = append(tools, obj{"type": "function", "name": t.name, "description": t.description, "parameters": json.RawMessage(t.schema)})
		}
		input := []obj{{"role": "user", "content": longQuestion}}
		for i := range rounds {
			name, args := longCall(i)
			input = append(input,
				obj{"type": "function_call", "call_id": callID(d, i), "name": name, "arguments": argsJSON(args)},
				obj{"type": "function_call_output", "call_id": callID(d, i), "output": longResult(i)})
		}
		body = obj{"model": "gpt-4.1", "stream": false, "instructions": longSystem, "tools": tools, "input": input}
	case conv.Anthropic:
		var tools []obj
		for _, t := range longTools {
			tools = append(tools, obj{"name": t.name, "description": t.description, "input_schema": json.RawMessage(t.schema)})
		}
		msgs := []obj{{"role": "user", "content": longQuestion}}
		for i := range rounds {
			name, args := longCall(i)
			msgs = append(msgs,
				obj{"role": "assistant", "content": []obj{{"type": "tool_use", "id": callID(d, i), "name": name, "input": args}}},
				obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": callID(d, i), "content": longResult(i)}}})
		}
		body = obj{"model": "claude-sonnet-4-5", "max_tokens": 1024, "stream": false, "system": longSystem, "tools": tools, "messages": msgs}
	case conv.Gemini:
		var decls []obj
		for _, t := range longTools {
			decls = append(decls, obj{"name": t.name, "description": t.description, "parametersJsonSchema": json.RawMessage(t.schema)})
		}
		contents := []obj{{"role": "user", "parts": []obj{{"text": longQuestion}}}}
		for i := range rounds {
			name, args := longCall(i)
			contents = append(contents,
				obj{"role": "model", "parts": []obj{{"functionCall": obj{"name": name, "args": args}, "thoughtSignature": "c2lnbmF0dXJl"}}},
				obj{"role": "user", "parts": []obj{{"functionResponse": obj{"name": name, "response": obj{"output": json.RawMessage(longResult(i))}}}}})
		}
		body = obj{"systemInstruction": obj{"parts": []obj{{"text": longSystem}}}, "tools": []obj{{"functionDeclarations": decls}}, "contents": contents}
	case conv.Bedrock:
		var tools []obj
		for _, t := range longTools {
			tools = append(tools, obj{"toolSpec": obj{"name": t.name, "description": t.description, "inputSchema": obj{"json": json.RawMessage(t.schema)}}})
		}
		msgs := []obj{{"role": "user", "content": []obj{{"text": longQuestion}}}}
		for i := range rounds {
			name, args := longCall(i)
			msgs = append(msgs,
				obj{"role": "assistant", "content": []obj{{"toolUse": obj{"toolUseId": callID(d, i), "name": name, "input": args}}}},
				obj{"role": "user", "content": []obj{{"toolResult": obj{"toolUseId": callID(d, i), "content": []obj{{"text": longResult(i)}}}}}})
		}
		body = obj{"system": []obj{{"text": longSystem}}, "toolConfig": obj{"tools": tools}, "messages": msgs}
	default:
		panic("no long-conversation body for dialect " + string(d))
	}
	b, err := json.Marshal(body)
	if err != nil {
		panic(err) // the values above always marshal
	}
	return b
}

// longRequest is body posted to d's endpoint under base, as the dialect's
// SDK addresses it, in session key.
// longKey is the API key, and so the session, of one worker of one cell.
func longKey(d conv.Dialect, rounds, worker int) string {
	return fmt.Sprintf("bench-long-%s-%d-%d", d, rounds, worker)
}

func longKeys(d conv.Dialect, rounds, workers int) []string {
	keys := make([]string, workers)
	for w := range keys {
		keys[w] = longKey(d, rounds, w)
	}
	return keys
}

// dropSessions forgets the sessions of a cell once it is measured (the
// admin API's DELETE /_toolwire/sessions/{key}), so that every cell runs
// in a mock holding only its own: otherwise a later cell's requests pay
// for the byte budget earlier cells filled (Responses at 400 rounds, run
// after the other cells: 0.31–0.32 of its baseline; on its own: 0.35).
// A mock without the endpoint keeps them.
func dropSessions(client *http.Client, base string, keys []string) {
	for _, k := range keys {
		req, _ := http.NewRequest(http.MethodDelete, base+"/_toolwire/sessions/"+url.PathEscape(k), nil)
		if resp, err := client.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

func longRequest(base string, d conv.Dialect, body []byte, key string) *http.Request {
	c := clients[d]
	req, _ := http.NewRequest(http.MethodPost, base+c.Endpoint("", false), bytes.NewReader(body))
	h := http.Header{}
	c.SetAuth(h, key)
	h.Set("Content-Type", "application/json")
	req.Header = h
	return req
}

// LongRow is one cell of the long-conversation table: one dialect with
// one number of earlier rounds, its ratio the median over the repetitions
// of mock req/s ÷ baseline req/s, each pair measured back to back.
type LongRow struct {
	Dialect     string    `json:"dialect"`
	Rounds      int       `json:"rounds"` // earlier tool rounds in the request
	BodyBytes   int       `json:"body_bytes"`
	BaselineRPS float64   `json:"baseline_rps"` // median over the repetitions
	MockRPS     float64   `json:"mock_rps"`     // median over the repetitions
	Ratio       float64   `json:"ratio"`        // median of RepRatios; three decimals, as a long request's is small
	RepRatios   []float64 `json:"rep_ratios"`   // in the order measured
	// MockCPUPerOp and BaselineCPUPerOp are the server processes' CPU
	// time per request (medians; 0 for a mock given by --mock-url
	// without --mock-pid).
	MockCPUPerOp     float64 `json:"mock_cpu_us_per_request,omitempty"`
	BaselineCPUPerOp float64 `json:"baseline_cpu_us_per_request,omitempty"`
	// CPURatio is BaselineCPUPerOp ÷ MockCPUPerOp: the ratio if the load
	// generator and the machine's other work took no CPU from the
	// servers, steadier than Ratio on a shared machine.
	CPURatio float64 `json:"cpu_ratio,omitempty"`
}

// LongTable is bench.json's long-conversation measurement.
type LongTable struct {
	Concurrency int       `json:"concurrency"`
	Duration    string    `json:"duration"` // of each run
	Reps        int       `json:"reps"`
	Sessions    string    `json:"sessions"`
	Rows        []LongRow `json:"rows"`
}

const longSessions = "each worker posts the same request repeatedly in its own session"

// pairRuns is one repetition of a cell: the baseline's and the mock's run.
type pairRuns struct{ base, mock Run }

// summarize turns a cell's repetitions into its row: each repetition's
// ratio against the baseline measured beside it, and the medians.
func summarize(d conv.Dialect, rounds, bodyBytes int, reps []pairRuns) LongRow {
	row := LongRow{Dialect: string(d), Rounds: rounds, BodyBytes: bodyBytes}
	var base, mock, ratios, mockCPU, baseCPU []float64
	for _, p := range reps {
		r := 0.0
		if p.base.RPS > 0 {
			r = p.mock.RPS / p.base.RPS
		}
		row.RepRatios = append(row.RepRatios, round3(r))
		ratios = append(ratios, r)
		base = append(base, p.base.RPS)
		mock = append(mock, p.mock.RPS)
		mockCPU = append(mockCPU, p.mock.CPUPerOp)
		baseCPU = append(baseCPU, p.base.CPUPerOp)
	}
	if len(reps) == 0 {
		return row
	}
	row.Ratio = round3(median(ratios))
	row.BaselineRPS, row.MockRPS = round(median(base)), round(median(mock))
	row.MockCPUPerOp, row.BaselineCPUPerOp = round(median(mockCPU)), round(median(baseCPU))
	if row.MockCPUPerOp > 0 {
		row.CPURatio = round3(row.BaselineCPUPerOp / row.MockCPUPerOp)
	}
	return row
}

// parseRounds reads --long-rounds: "" measures no long conversations.
func parseRounds(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad --long-rounds entry %q: want a count of earlier tool rounds", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// checkAccepted posts req once and fails unless the answer is a 200: a
// refused request would measure the mock's error path, not its work.
func checkAccepted(client *http.Client, req *http.Request, what string) error {
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 2048))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: status %d, want 200: %s", what, resp.StatusCode, b)
	}
	return nil
}

// runLong measures the long-conversation table. Within a repetition every
// cell's baseline and mock run back to back, the mock first on odd
// repetitions, so that a machine whose speed drifts moves both sides of
// each ratio alike.
func runLong(client *http.Client, mock, base *server, dialects []conv.Dialect, roundsList []int, each time.Duration, workers, reps int) (*LongTable, error) {
	t := &LongTable{Concurrency: workers, Duration: each.String(), Reps: reps, Sessions: longSessions}
	type cell struct {
		d      conv.Dialect
		rounds int
		body   []byte
	}
	var cells []cell
	for _, d := range dialects {
		for _, n := range roundsList {
			c := cell{d, n, longBody(d, n)}
			what := fmt.Sprintf("%s with %d earlier rounds (%d bytes)", d, n, len(c.body))
			if err := checkAccepted(client, longRequest(mock.url, d, c.body, "bench-long-check"), "the mock refused "+what); err != nil {
				return nil, err
			}
			if err := checkAccepted(client, longRequest(base.url, d, c.body, "bench-long-check"), "the baseline refused "+what); err != nil {
				return nil, err
			}
			cells = append(cells, c)
		}
	}
	measured := make([][]pairRuns, len(cells))
	for rep := range reps {
		for i, c := range cells {
			measure := func(srv *server, target string) (Run, error) {
				r := load(client, srv, each, workers, target, false, func(worker, _ int) *http.Request {
					return longRequest(srv.url, c.d, c.body, longKey(c.d, c.rounds, worker))
				})
				if r.Errors > 0 || r.Requests == 0 {
					return r, fmt.Errorf("%s, %s with %d earlier rounds: %d of %d requests failed", target, c.d, c.rounds, r.Errors, r.Requests)
				}
				return r, nil
			}
			order := []string{"baseline", "mock"}
			if rep%2 == 1 {
				order = []string{"mock", "baseline"}
			}
			var p pairRuns
			for _, target := range order {
				var err error
				if target == "mock" {
					p.mock, err = measure(mock, string(c.d))
					dropSessions(client, mock.url, longKeys(c.d, c.rounds, workers))
				} else {
					p.base, err = measure(base, "baseline")
				}
				if err != nil {
					return nil, err
				}
			}
			measured[i] = append(measured[i], p)
		}
	}
	for i, c := range cells {
		t.Rows = append(t.Rows, summarize(c.d, c.rounds, len(c.body), measured[i]))
	}
	return t, nil
}

func printLong(w io.Writer, t *LongTable) {
	fmt.Fprintf(w, "long conversations: concurrency %d, %s per run, %d repetitions, interleaved with a baseline reading the same body; %s\n", t.Concurrency, t.Duration, t.Reps, t.Sessions)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dialect\trounds\tbody bytes\tbaseline req/s\tmock req/s\tratio\trepetitions\tCPU µs/req baseline\tmock\tCPU ratio\t")
	for _, r := range t.Rows {
		reps := make([]string, len(r.RepRatios))
		for i, x := range r.RepRatios {
			reps[i] = strconv.FormatFloat(x, 'f', 3, 64)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.0f\t%.3f\t%s\t%.0f\t%.0f\t%.3f\t\n", r.Dialect, r.Rounds, r.BodyBytes, r.BaselineRPS, r.MockRPS, r.Ratio, strings.Join(reps, " "), r.BaselineCPUPerOp, r.MockCPUPerOp, r.CPURatio)
	}
	_ = tw.Flush()
}

// medianCopy is median without reordering xs.
func medianCopy(xs []float64) float64 { return median(slices.Clone(xs)) }

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
