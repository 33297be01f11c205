package openairesp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/openaiwire"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The body as the decoder reads it: JSON, known members, their types and
// the members each item requires.

var RuleValidJSON = set.Add(rules.Rule{
	ID: "openai-responses.valid-json", Level: rules.MUST, Family: familyShapes,
	Summary: "The body is JSON in UTF-8 (a syntax error or invalid UTF-8 gets the API's parse error; the body is never stored raw).",
	Refs: []rules.Ref{
		{URL: "https://github.com/ChatGPTNextWeb/NextChat/issues/4064", Quote: "the parse error envelope, verbatim"},
		{Quote: "invalid UTF-8 answered the same", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name:       "body cut short",
			Bad:        json.RawMessage(`{"model":"gpt-4.1","input":"Hi"`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi"}`),
			WantStatus: 400, WantMessage: "We could not parse the JSON body of your request.",
		},
	},
}, judgedWhileDecoding)

// judgedWhileDecoding is the check of a rule the decoder enforces: a
// request that breaks it never reaches the checks (it is answered with the
// rule's 400 by decodeError), so there is nothing left to find here.
func judgedWhileDecoding(*Request, *rules.Env) []rules.Violation { return nil }

var RuleKnownFields = set.Add(rules.Rule{
	ID: "openai-responses.known-fields", Level: rules.MUST, Family: familyShapes,
	Summary: "Every member is one the API defines, at the top level and nested (Unknown parameter: 'input[1].metadata'.). With --lenient, unknown members are journaled instead.",
	Refs: []rules.Ref{
		{URL: "https://github.com/microsoft/agent-framework/issues/2203", Quote: "Unknown parameter: 'input[1].metadata'., code unknown_parameter"},
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go", Quote: "ResponseNewParams fields"},
	},
	Cases: []rules.Case{
		{
			Name: "metadata on an input item",
			Bad: js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},
				{"role":"assistant","content":"Hello","metadata":{"source":"cache"}},{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},
				{"role":"assistant","content":"Hello"},{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Unknown parameter: 'input[1].metadata'.",
		},
		{
			Name:       "unknown top-level member",
			Bad:        js(`{"model":"gpt-4.1","input":"Hi","foo":1}`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi"}`),
			WantStatus: 400, WantMessage: "Unknown parameter: 'foo'.",
		},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	// In lenient mode, the members strict mode would have answered with a
	// 400 (strict decoding never gets this far).
	var out []rules.Violation
	for _, p := range r.Unknown {
		if _, moved := movedMember(p); moved {
			continue // response-format-moved's
		}
		param := wirejson.Bracketed(p)
		out = append(out, violation(atMembers, param, param, "unknown_parameter", fmt.Sprintf("Unknown parameter: '%s'.", param)))
	}
	return out
})

var RuleFieldTypes = set.Add(rules.Rule{
	ID: "openai-responses.field-types", Level: rules.MUST, Family: familyShapes,
	Summary: "Every member has its type (strings, integers, decimals, booleans, arrays, objects, the string-or-array unions), numbers are in range (temperature 0–2, top_p 0–1), objects have no member twice, union objects have a supported type, and an input_file is of a file type the API reads.",
	Refs: append(append([]rules.Ref{
		{URL: "https://github.com/openai/openai-go/blob/v3.98.0/responses/response.go", Quote: "ResponseNewParams field types"},
		{URL: "https://github.com/Wei-Shaw/sub2api/issues/3818", Quote: "verbatim: Invalid type for 'input[40].arguments': expected an object, but got a string instead., param input[40].arguments, code invalid_type, for a tool_search_call"},
		{Quote: "duplicate-member and out-of-range texts", Inferred: true},
	}, openaiwire.SamplingRangesRefs...), inputFileRefs...),
	Cases: []rules.Case{
		{
			Name:       "message content as a number",
			Bad:        js(`{"model":"gpt-4.1","input":[{"role":"user","content":0}]}`),
			Good:       js(`{"model":"gpt-4.1","input":[{"role":"user","content":"0"}]}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input[0].content': expected one of a string or array of input items, but got an integer instead.",
		},
		{
			Name: "input_tokens: input as a number", Path: InputTokensPath,
			Bad:        js(`{"model":"gpt-4.1","input":0}`),
			Good:       js(`{"model":"gpt-4.1","input":"0"}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead.",
		},
		{
			Name:       "input as a number",
			Bad:        js(`{"model":"gpt-4.1","input":0}`),
			Good:       js(`{"model":"gpt-4.1","input":"0"}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead.",
		},
		{
			Name:       "temperature below 0",
			Bad:        js(`{"model":"gpt-4.1","input":"Hi","temperature":-1}`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi","temperature":0}`),
			WantStatus: 400, WantMessage: "Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got -1 instead.",
		},
		{
			Name:       "top_p above 1",
			Bad:        js(`{"model":"gpt-4.1","input":"Hi","top_p":1.5}`),
			Good:       js(`{"model":"gpt-4.1","input":"Hi","top_p":1}`),
			WantStatus: 400, WantMessage: "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead.",
		},
		{
			Name: "input_file of a kind the API does not read",
			Bad: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Summarize"},
				{"type":"input_file","filename":"report.zip","file_data":"data:application/zip;base64,UEsDBA=="}]}]}`),
			Good: js(`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Summarize"},
				{"type":"input_file","filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}]}]}`),
			WantStatus: 400, WantMessage: UnsupportedFileMessage,
		},
		{
			Name: "tool_search_call arguments as a JSON string",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Which tool tells the weather?"},
				{"type":"tool_search_call","call_id":"call_ts","execution":"client","status":"completed","arguments":"{\"query\":\"weather\"}"},
				{"type":"function_call_output","call_id":"call_ts","output":"get_weather"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Which tool tells the weather?"},
				{"type":"tool_search_call","call_id":"call_ts","execution":"client","status":"completed","arguments":{"query":"weather"}},
				{"type":"function_call_output","call_id":"call_ts","output":"get_weather"}]}`),
			WantStatus: 400, WantMessage: "Invalid type for 'input[1].arguments': expected an object, but got a string instead.",
		},
	},
}, checkFieldValues)

// inputFileRefs: the answer is quoted from a 2025 report, when only PDF
// files were read; since February 2026 the API reads documents, text,
// code, presentations and spreadsheets too, so only the kinds no list
// names (archives, audio, video, executables) are refused here.
var inputFileRefs = []rules.Ref{
	{URL: "https://github.com/openai/openai-node/issues/1560", Quote: "verbatim 400: The file type you uploaded is not supported. Please try again with a pdf"},
	{URL: "https://developers.openai.com/api/docs/guides/file-inputs", Quote: "accepted input_file types: PDF, text and code, rich documents, presentations, spreadsheets"},
	{Quote: "param input and code unsupported_file", Inferred: true},
}

// UnsupportedFileMessage is the API's answer to an input_file of a kind it
// does not read.
const UnsupportedFileMessage = "The file type you uploaded is not supported. Please try again with a pdf"

// unreadableFileExtensions are the kinds of file no accepted-type list
// names: archives, audio, video, executables and disk images.
var unreadableFileExtensions = map[string]bool{
	"zip": true, "gz": true, "tgz": true, "tar": true, "7z": true, "rar": true, "bz2": true, "xz": true,
	"mp3": true, "wav": true, "m4a": true, "ogg": true, "flac": true, "aac": true, "opus": true,
	"mp4": true, "mov": true, "avi": true, "mkv": true, "webm": true, "m4v": true,
	"exe": true, "dll": true, "so": true, "dylib": true, "bin": true, "dmg": true, "iso": true, "apk": true, "msi": true,
}

// unreadableFileTypes are the same kinds as MIME types (audio/* and video/*
// are matched by their prefix).
var unreadableFileTypes = map[string]bool{
	"application/zip": true, "application/x-zip-compressed": true, "application/gzip": true, "application/x-gzip": true,
	"application/x-tar": true, "application/x-7z-compressed": true, "application/vnd.rar": true, "application/x-rar-compressed": true,
	"application/x-bzip2": true, "application/x-xz": true, "application/x-msdownload": true, "application/x-executable": true,
	"application/vnd.android.package-archive": true, "application/x-apple-diskimage": true,
}

// unreadableFile reports whether an input_file names a kind of file the
// API does not read, by its filename, the MIME type of its data URL or
// the path of its URL. A file_id says nothing here and is accepted.
func unreadableFile(f *ResponseInputFileParam) bool {
	ext := func(name string) bool {
		name = strings.ToLower(name)
		if i := strings.IndexAny(name, "?#"); i >= 0 {
			name = name[:i]
		}
		dot := strings.LastIndexByte(name, '.')
		return dot >= 0 && dot > strings.LastIndexByte(name, '/') && unreadableFileExtensions[name[dot+1:]]
	}
	if f.Filename != nil && ext(*f.Filename) {
		return true
	}
	if f.FileURL != nil && ext(*f.FileURL) {
		return true
	}
	if f.FileData != nil && strings.HasPrefix(*f.FileData, "data:") {
		mime, _, _ := strings.Cut(strings.TrimPrefix(*f.FileData, "data:"), ";")
		mime, _, _ = strings.Cut(mime, ",")
		mime = strings.ToLower(strings.TrimSpace(mime))
		if unreadableFileTypes[mime] || strings.HasPrefix(mime, "audio/") || strings.HasPrefix(mime, "video/") {
			return true
		}
	}
	return false
}

// checkFieldValues judges the values the decoder accepts by type but the
// API refuses: sampling members out of range, input files it cannot read
// and a tool_search_call's arguments sent as a string (the wire model
// keeps them raw). Every other breach of the rule is answered while
// decoding.
func checkFieldValues(r *Request, _ *rules.Env) []rules.Violation {
	out := openaiwire.CheckSamplingRanges(r.W.Temperature, r.W.TopP, atMembers)
	for _, it := range r.Items {
		if it.Kind() == "tool_search_call" {
			// Unlike a function_call's, its arguments are an object
			// (Wei-Shaw/sub2api#3818 quotes the API's answer to a string).
			if k := it.Arguments.Kind(); len(it.Arguments) > 0 && k != 'n' && k != '{' {
				param := fmt.Sprintf("input[%d].arguments", it.Index)
				out = append(out, violation(atItem(it.Index), param, param, "invalid_type",
					fmt.Sprintf("Invalid type for '%s': expected an object, but got %s instead.", param, GotOf(byte(k), string(it.Arguments)))))
			}
			continue
		}
		if it.Kind() != "message" || it.Content == nil {
			continue
		}
		for j := range it.Content.OfParts {
			if f := it.Content.OfParts[j].OfInputFile; f != nil && unreadableFile(f) {
				out = append(out, violation(atItem(it.Index), fmt.Sprintf("input[%d].content[%d]", it.Index, j), "input", "unsupported_file", UnsupportedFileMessage))
				break
			}
		}
	}
	return out
}

var RuleRequiredFields = set.Add(rules.Rule{
	ID: "openai-responses.required-fields", Level: rules.MUST, Family: familyShapes,
	Summary: "Every input item carries its required fields (function_call: call_id, name, arguments; function_call_output: call_id, output; message: role, content; reasoning: summary), and model and input are present (a stored prompt carries both). A reasoning item's id is not required: a store:false continuation may pass one back by its encrypted_content alone.",
	Refs: []rules.Ref{
		{URL: "https://platform.openai.com/docs/api-reference/responses/create", Quote: "required item fields"},
		{URL: "https://github.com/openai/codex/pull/3390", Quote: "Do not send reasoning item IDs: Response API doesn't require IDs on reasoning items anymore."},
		{URL: "testdata/corpus/datadog-dd-trace-py.jsonl", Quote: "recorded 200s: a stored prompt without model or input"},
		{Quote: "the message, in the API's Missing required parameter form", Inferred: true},
	},
	Cases: []rules.Case{
		{
			Name: "function_call without name",
			Bad: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			Good: js(`{"model":"gpt-4.1","tools":[$TOOL],"input":[{"role":"user","content":"Weather?"},
				{"type":"function_call","call_id":"call_a","name":"get_weather","arguments":"{\"location\":\"Tokyo\"}"},
				{"type":"function_call_output","call_id":"call_a","output":"18C"}]}`),
			WantStatus: 400, WantMessage: "Missing required parameter: 'input[1].name'.",
		},
		{
			Name: "compact without model", Path: CompactPath,
			Bad:        js(`{"input":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}`),
			Good:       js(`{"model":"gpt-4.1","input":[{"role":"user","content":"Hi"},{"role":"assistant","content":"Hello"}]}`),
			WantStatus: 400, WantMessage: "Missing required parameter: 'model'.",
		},
		{
			Name: "reasoning item without summary",
			Bad: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a"},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			Good: js(`{"model":"gpt-5","input":[{"role":"user","content":"Hi"},{"type":"reasoning","id":"rs_a","summary":[]},
				$MSG_A,{"role":"user","content":"Again"}]}`),
			WantStatus: 400, WantMessage: "Missing required parameter: 'input[1].summary'.",
		},
	},
}, checkRequired)

func checkRequired(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	// A stored prompt (prompt.id) carries its own model and input: the
	// real API answers such a request without either (the recorded
	// exchanges in testdata/corpus/datadog-dd-trace-py.jsonl).
	stored := r.W.Prompt != nil && r.W.Prompt.ID != nil && *r.W.Prompt.ID != ""
	if r.Model == "" && r.Endpoint != InputTokensPath && !stored {
		out = append(out, missing(atMembers, "model"))
	}
	if r.W.Input.OfString == nil && !r.InputList && r.Endpoint == Path && !stored {
		if r.PreviousResponseID == nil || *r.PreviousResponseID == "" {
			out = append(out, missing(atInput, "input"))
		}
	}
	for i, t := range r.Tools {
		if t.Type == "" {
			out = append(out, missing(atTool(r, i), fmt.Sprintf("tools[%d].type", i)))
		} else if t.Type == "function" && (t.Name == nil) {
			out = append(out, missing(atTool(r, i), fmt.Sprintf("tools[%d].name", i)))
		}
	}
	if r.InputString || (r.factsKnown() && r.taken&factMissing == 0) {
		return out
	}
	for _, it := range r.Items {
		for _, f := range missingMembers(it) {
			out = append(out, missing(atItem(it.Index), fmt.Sprintf("input[%d].%s", it.Index, f)))
		}
	}
	return out
}

// missingMembers are the members item it lacks that its type requires,
// in the order the API names them.
func missingMembers(it *Item) []string {
	var out []string
	need := func(present bool, f string) {
		if !present {
			out = append(out, f)
		}
	}
	switch it.Kind() {
	case "message":
		need(it.Role != "" || !it.Typed, "role")
		need(it.Content != nil && it.Content.Present(), "content")
	case "function_call":
		need(it.CallID != nil, "call_id")
		need(it.Name != nil, "name")
		need(len(it.Arguments) > 0 && it.Arguments.Kind() != 'n', "arguments")
	case "function_call_output":
		need(it.CallID != nil, "call_id")
		need(it.Output != nil && (it.Output.OfString != nil || it.Output.OfResponseFunctionCallOutputItemArray != nil), "output")
	case "reasoning":
		// No id needed (openai/codex#3390): Codex, the AI SDK and the
		// Agents SDK's omit policy send reasoning back without one.
		need(it.HasSummary, "summary")
	case "item_reference":
		need(it.ID != "", "id")
	}
	return out
}
