// Package formatdriver is the reference format driver: the two pure
// functions an adapter library is made of, behind the JSON-lines contract
// of `toolwire conform --format-driver CMD`.
//
//   - format_result: {op, dialect, call: {name, call_id, arguments},
//     result: MCP CallToolResult, model} → the dialect's native result: an
//     OpenAI Chat tool message, a Responses function_call_output item, an
//     Anthropic user message holding a tool_result block, a Gemini user
//     content holding a functionResponse part.
//   - normalize_calls: {op, dialect, response: raw provider response} →
//     {calls: [{name, call_id, arguments}]}, arguments always an object,
//     Gemini calls given the synthetic ids gemini_0, gemini_1, … (https://ai.google.dev/gemini-api/docs/function-calling
//     §Hands-on exercise).
//
// Each request is one line on stdin, each answer one line on stdout; a
// request the driver cannot serve is answered {"error": "…"}. Break
// variants commit one classic mistake each, so the suite can prove its
// checks catch them. The package works on raw JSON, independently of the
// SDK-based reference driver, so the two check each other. What each API
// does lives beside the dialect (mockprovider/<d>/refdriver/format.go, a
// FormatDialect); this package is the contract, the shared mistakes and
// the helpers more than one wire needs.
package formatdriver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/toolwire/toolwire/suite/task"
)

// Break names a deliberate mistake.
type Break string

// The mistakes more than one wire makes, each declared once; a dialect's
// Breaks says which rules each fails on its wire, and adds the mistakes
// only its wire can make.
const (
	// OmitIsError drops the error marking: no is_error (Anthropic), no
	// status error (Bedrock), the error under "output" (Gemini), no
	// "Error: " prefix (OpenAI, where the error's own text still tells the
	// model: not a mistake there).
	OmitIsError Break = "omit-is-error"
	// ErrorAsNull sends "null" as the OpenAI output of a tool error (the
	// JSON of the structured content errors lack): the error is lost.
	ErrorAsNull Break = "error-as-null"
	// ArgumentsAsObject assumes arguments carried as a JSON string
	// already are an object and passes the string through unparsed.
	ArgumentsAsObject Break = "arguments-as-object"
)

// summaries describe the shared mistakes, for --list-breaks.
var summaries = map[Break]string{
	OmitIsError:       "tool errors sent as ordinary results",
	ErrorAsNull:       `tool errors sent as the output "null" where results are text`,
	ArgumentsAsObject: "arguments carried as a JSON string passed through unparsed",
}

// FormatDialect is one API's half of the reference format driver: its
// native result and how its responses carry calls, each honouring the
// mistake brk ("" = honest).
type FormatDialect interface {
	// Name is the dialect's name on the contract ("openai-chat", …).
	Name() string
	FormatResult(brk Break, call Call, r task.CallToolResult, model string) (map[string]any, error)
	NormalizeCalls(brk Break, raw json.RawMessage) ([]Call, error)
	// Breaks lists the mistakes this wire can make and the rules each
	// must fail here; Summary is needed only for a mistake not declared
	// above.
	Breaks() []BreakInfo
}

// BreakInfo describes a break variant and the rules it should fail.
type BreakInfo struct {
	Name    Break
	Summary string
	Rules   []string
}

// Breaks lists the variants the dialects make, sorted by name, each with
// the rules it fails on every wire.
func Breaks(dialects []FormatDialect) []BreakInfo {
	rules := map[Break][]string{}
	summary := maps.Clone(summaries)
	for _, d := range dialects {
		for _, b := range d.Breaks() {
			rules[b.Name] = append(rules[b.Name], b.Rules...)
			if b.Summary != "" {
				summary[b.Name] = b.Summary
			}
		}
	}
	var out []BreakInfo
	for b, ids := range rules {
		sort.Strings(ids)
		out = append(out, BreakInfo{Name: b, Summary: summary[b], Rules: slices.Compact(ids)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupBreak finds a variant ("" is the honest driver).
func LookupBreak(dialects []FormatDialect, name string) (BreakInfo, bool) {
	if name == "" {
		return BreakInfo{}, true
	}
	for _, b := range Breaks(dialects) {
		if string(b.Name) == name {
			return b, true
		}
	}
	return BreakInfo{}, false
}

// Request is one line of the contract.
type Request struct {
	Op       string          `json:"op"`
	Dialect  string          `json:"dialect"`
	Call     *Call           `json:"call,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Model    string          `json:"model,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
}

// Call is a normalized function call.
type Call struct {
	Name      string `json:"name"`
	CallID    string `json:"call_id"`
	Arguments any    `json:"arguments"`
}

// Driver answers requests for its dialects; Break selects a mistake ("" =
// honest).
type Driver struct {
	Break    Break
	Dialects []FormatDialect
}

func (d *Driver) dialect(name string) (FormatDialect, error) {
	for _, fd := range d.Dialects {
		if fd.Name() == name {
			return fd, nil
		}
	}
	return nil, fmt.Errorf("unknown dialect %q", name)
}

// Handle answers one request line.
func (d *Driver) Handle(line []byte) any {
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return map[string]any{"error": "request is not a JSON object: " + err.Error()}
	}
	switch req.Op {
	case "format_result":
		if req.Call == nil {
			return map[string]any{"error": "format_result needs call"}
		}
		var r task.CallToolResult
		if err := json.Unmarshal(req.Result, &r); err != nil {
			return map[string]any{"error": "result is not an MCP CallToolResult: " + err.Error()}
		}
		fd, err := d.dialect(req.Dialect)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		out, err := fd.FormatResult(d.Break, *req.Call, r, req.Model)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return out
	case "normalize_calls":
		fd, err := d.dialect(req.Dialect)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		calls, err := fd.NormalizeCalls(d.Break, req.Response)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		return map[string]any{"calls": calls}
	}
	return map[string]any{"error": fmt.Sprintf("unknown op %q (want format_result or normalize_calls)", req.Op)}
}

// Serve reads request lines until EOF and answers each on its own line.
func (d *Driver) Serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	bw := bufio.NewWriter(w)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		b, err := json.Marshal(d.Handle([]byte(line)))
		if err != nil {
			b, _ = json.Marshal(map[string]any{"error": err.Error()})
		}
		bw.Write(b)
		bw.WriteByte('\n')
		// One answer per request, flushed: the caller waits for it.
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// The helpers more than one wire uses.

// ErrorText prefixes an error's text for wires without an error flag
// (https://platform.openai.com/docs/guides/function-calling).
func ErrorText(brk Break, r task.CallToolResult, text string) string {
	if r.IsError && brk == ErrorAsNull {
		return "null"
	}
	if !r.IsError || brk == OmitIsError || strings.HasPrefix(strings.ToLower(text), "error") {
		return text
	}
	return "Error: " + text
}

// Text is the result's text, or its structured content as JSON.
func Text(r task.CallToolResult) string {
	t := r.Text()
	if t == "" && r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		t = string(b)
	}
	return t
}

// PlainText is the text form for text-only wires: media become a note.
func PlainText(brk Break, r task.CallToolResult) string {
	t := ErrorText(brk, r, Text(r))
	for _, m := range r.Media() {
		if t != "" {
			t += "\n"
		}
		t += fmt.Sprintf("[%s attachment omitted: this API takes no media in tool results]", m.MimeType)
	}
	return t
}

// StringArguments parses arguments carried as a JSON string (both OpenAI
// APIs); unparseable ones become {}
// (https://platform.openai.com/docs/guides/function-calling).
func StringArguments(brk Break, s string) any {
	if brk == ArgumentsAsObject {
		return s
	}
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// ObjectArguments is a call's object arguments, {} when absent.
func ObjectArguments(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
