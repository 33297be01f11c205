package agree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Kind is how the mock's answer compares with the recorded one.
type Kind string

const (
	Agree Kind = "agree"
	// FalseRefusal: the real API accepted the request, the mock refused it.
	FalseRefusal Kind = "false-refusal"
	// MissedRefusal: the real API refused the request, the mock accepted it.
	MissedRefusal Kind = "missed-refusal"
	// WrongError: both refused, with a different status or message.
	WrongError Kind = "wrong-error"
	// Skipped: the recorded answer says nothing about the request's
	// validity (credentials, rate limits, server errors).
	Skipped Kind = "skipped"
)

// Answer is one side's answer to a request.
type Answer struct {
	Status int `json:"status"`
	// Rule is the mock's X-Toolwire-Rule header (the catalog rule that
	// refused the request), empty for a recorded answer.
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message,omitempty"`
}

func (a Answer) String() string {
	s := strconv.Itoa(a.Status)
	if a.Rule != "" {
		s += " " + a.Rule
	}
	if a.Message != "" {
		s += ": " + a.Message
	}
	return s
}

// Verdict is one exchange judged.
type Verdict struct {
	ID       string       `json:"id"`
	Dialect  conv.Dialect `json:"dialect"`
	Path     string       `json:"path"`
	Kind     Kind         `json:"kind"`
	Recorded Answer       `json:"recorded"`
	Mock     Answer       `json:"mock"`
	// Excerpt is the part of the request the refusal names (or the
	// request's start): what a bug report needs to show.
	Excerpt string `json:"excerpt,omitempty"`
	// Note says why an exchange was skipped, or what failed in replaying it.
	Note string `json:"note,omitempty"`
}

// Replayer sends recorded requests to a mock, each under a key of its own
// so no exchange sees another's session.
type Replayer struct {
	// Handler, when set, is called in process; else requests go to BaseURL.
	Handler http.Handler
	BaseURL string
	Client  *http.Client
	// KeyPrefix starts every key the replay sends.
	KeyPrefix string
	n         atomic.Int64
}

// NewInProcess replays through a fresh mock with default options, with no
// listening socket. close releases the mock.
func NewInProcess() (r *Replayer, close func()) {
	m := mockprovider.New(mockprovider.Options{})
	return &Replayer{Handler: m}, m.Close
}

// Judge replays one exchange and compares the answers.
func (r *Replayer) Judge(ex Exchange) Verdict {
	v := Verdict{ID: ex.ID, Dialect: ex.Dialect, Path: ex.Path, Recorded: Answer{Status: ex.Status}}
	if !success(ex.Status) {
		v.Recorded.Message = errorMessage([]byte(ex.Body))
	}
	if reason := Unjudged(ex); reason != "" {
		v.Kind, v.Note = Skipped, reason
		return v
	}
	mock, err := r.send(ex)
	if err != nil {
		v.Kind, v.Note = FalseRefusal, "replay failed: "+err.Error()
		return v
	}
	v.Mock = mock
	switch recOK, mockOK := success(ex.Status), success(mock.Status); {
	case recOK && mockOK:
		v.Kind = Agree
	case recOK:
		v.Kind = FalseRefusal
	case mockOK:
		v.Kind = MissedRefusal
	case mock.Status == ex.Status && sameText(mock.Message, v.Recorded.Message):
		v.Kind = Agree
	default:
		v.Kind = WrongError
	}
	if v.Kind != Agree {
		v.Excerpt = Excerpt(ex.Request, mock.Message+" "+v.Recorded.Message)
	}
	return v
}

// Unjudged says why a recorded answer tells nothing about whether the
// request was valid, or "" when it does.
func Unjudged(ex Exchange) string {
	status := ex.Status
	switch {
	case status == http.StatusBadRequest && strings.Contains(strings.ToLower(errorMessage([]byte(ex.Body))), "api key"):
		// Gemini refuses a bad key with 400 INVALID_ARGUMENT.
		return "recorded 400 for the API key: a credential refusal; the replay sends a key of its own"
	case success(status):
		return ""
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Sprintf("recorded %d: a credential refusal; the replay sends a key of its own", status)
	case status == http.StatusTooManyRequests || status == 529:
		return fmt.Sprintf("recorded %d: rate limit or overload, not about the request", status)
	case status >= 500:
		return fmt.Sprintf("recorded %d: a server error, not about the request", status)
	case status >= 400:
		return ""
	}
	return fmt.Sprintf("recorded %d: not an answer the mock models", status)
}

func (r *Replayer) send(ex Exchange) (Answer, error) {
	dl, ok := mockprovider.BuiltinDialect(ex.Dialect)
	if !ok {
		return Answer{}, fmt.Errorf("unknown dialect %q", ex.Dialect)
	}
	method := ex.Method
	if method == "" {
		method = http.MethodPost
	}
	var req *http.Request
	var err error
	if r.Handler != nil {
		req = httptest.NewRequest(method, ex.Path, strings.NewReader(ex.Request))
	} else {
		req, err = http.NewRequest(method, strings.TrimRight(r.BaseURL, "/")+ex.Path, strings.NewReader(ex.Request))
		if err != nil {
			return Answer{}, err
		}
	}
	prefix := r.KeyPrefix
	if prefix == "" {
		prefix = "tw-agree-"
	}
	dl.SetAuth(req.Header, prefix+strconv.FormatInt(r.n.Add(1), 10))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range ex.Headers {
		req.Header.Set(k, v)
	}
	var status int
	var header http.Header
	var body []byte
	if r.Handler != nil {
		rec := httptest.NewRecorder()
		r.Handler.ServeHTTP(rec, req)
		status, header, body = rec.Code, rec.Header(), rec.Body.Bytes()
	} else {
		c := r.Client
		if c == nil {
			c = http.DefaultClient
		}
		resp, err := c.Do(req)
		if err != nil {
			return Answer{}, err
		}
		defer resp.Body.Close()
		// A success's body is not compared; an error's is small.
		body, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return Answer{}, err
		}
		status, header = resp.StatusCode, resp.Header
	}
	a := Answer{Status: status, Rule: header.Get(wire.RuleHeader)}
	if !success(status) {
		a.Message = errorMessage(body)
	}
	return a, nil
}

// errorMessage is the message in an error envelope: all four APIs put it at
// error.message.
func errorMessage(body []byte) string {
	var env struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &env) == nil {
		switch {
		case env.Error.Message != "":
			return strings.TrimSpace(env.Error.Message)
		case env.Message != "":
			return strings.TrimSpace(env.Message)
		}
	}
	return clip(strings.TrimSpace(string(body)), 300)
}

// sameText compares messages ignoring runs of white space (cassettes fold
// long lines).
func sameText(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// pathRE finds what reads as a path into the request in an error message:
// messages.2.content.0, messages[2].tool_calls, contents[1].parts[0],
// input[3].call_id, tools[0].function.parameters.
var pathRE = regexp.MustCompile(`\b(?:messages|contents|input|tools|system|tool_choice|parts|content|generation_config|generationConfig|response_format|text)(?:(?:\.\[?|\[)[A-Za-z0-9_]+\]?)+`)

// Excerpt is the part of a request body a message points at (the deepest
// member of the first path in the message that the request has), or the
// start of the request when the message names none.
func Excerpt(request, message string) string {
	var doc any
	if json.Unmarshal([]byte(request), &doc) != nil {
		return clip(request, 400)
	}
	for _, p := range pathRE.FindAllString(message, -1) {
		segs := splitPath(p)
		var cur any = doc
		found := ""
		for i, s := range segs {
			next, ok := step(cur, s)
			if !ok {
				break
			}
			cur = next
			found = strings.Join(segs[:i+1], ".")
		}
		if found == "" {
			continue
		}
		b, _ := json.Marshal(cur)
		return found + ": " + clip(string(b), 600)
	}
	// No path: an id the message quotes (toolu_…, call_…, resp_…) shows
	// where in the request the problem is.
	flat := compact(request)
	for _, tok := range idRE.FindAllString(message, -1) {
		if len(tok) < 10 {
			continue
		}
		if i := strings.Index(flat, tok); i >= 0 {
			start := max(0, i-200)
			for start > 0 && !utf8Start(flat[start]) {
				start--
			}
			return "…" + clip(flat[start:], 500)
		}
	}
	return clip(flat, 400)
}

// idRE is what reads as an id in a message: a word of letters, digits and
// underscores or dashes with a digit in it, ten characters or more.
var idRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*`)

func splitPath(p string) []string {
	p = strings.NewReplacer(".[", ".", "[", ".", "]", "").Replace(p)
	return strings.Split(p, ".")
}

// step walks one segment: an index into an array, a member of an object
// (as written, or in camelCase: Gemini's messages name fields in
// snake_case, its JSON in camelCase).
func step(cur any, seg string) (any, bool) {
	switch t := cur.(type) {
	case []any:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= len(t) {
			return nil, false
		}
		return t[i], true
	case map[string]any:
		if v, ok := t[seg]; ok {
			return v, true
		}
		if v, ok := t[camel(seg)]; ok {
			return v, true
		}
	}
	return nil, false
}

func camel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			r := []rune(parts[i])
			r[0] = unicode.ToUpper(r[0])
			parts[i] = string(r)
		}
	}
	return strings.Join(parts, "")
}

func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d bytes more)", len(s)-cut)
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
