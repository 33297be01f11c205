// Package record captures real provider traffic once and serves it back
// forever: in record mode the mock forwards each request (after journaling
// its rule violations) to the real API with the caller's own key, streams the
// answer back, and writes the exchange to a recording file with secrets
// redacted; in replay mode it answers from those files, event for event.
package record

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Exchange is one recorded request and its answer.
type Exchange struct {
	Dialect conv.Dialect      `yaml:"dialect" json:"dialect"`
	Method  string            `yaml:"method" json:"method"`
	Path    string            `yaml:"path" json:"path"` // with the query, key removed
	Request string            `yaml:"request" json:"request"`
	Status  int               `yaml:"status" json:"status"`
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	Body    string            `yaml:"body,omitempty" json:"body,omitempty"`
	// Events is a streamed answer, event for event; Separator is what
	// ended each event ("\n\n", or "\r\n\r\n" for Gemini).
	Events    []Event `yaml:"events,omitempty" json:"events,omitempty"`
	Separator string  `yaml:"separator,omitempty" json:"separator,omitempty"`
	// Incomplete marks an exchange cut short (the client left, the
	// upstream failed, the server shut down): what arrived is kept.
	Incomplete bool `yaml:"incomplete,omitempty" json:"incomplete,omitempty"`
}

// Event is one server-sent event as it came.
type Event struct {
	Event string `yaml:"event,omitempty" json:"event,omitempty"`
	Data  string `yaml:"data" json:"data"`
}

// File is one recording: a session's exchanges in order.
type File struct {
	Name      string     `yaml:"name" json:"name"`
	Recorded  time.Time  `yaml:"recorded" json:"recorded"`
	Exchanges []Exchange `yaml:"exchanges" json:"exchanges"`
}

// Upstreams maps a provider family ("openai", "anthropic", "gemini") to a
// base URL (scheme and host, e.g. https://api.openai.com).
type Upstreams map[string]string

// ParseUpstreams reads "openai=URL,anthropic=URL,gemini=URL".
func ParseUpstreams(s string) (Upstreams, error) {
	out := Upstreams{}
	for _, kv := range strings.Split(s, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || v == "" {
			return nil, fmt.Errorf("bad upstream %q (want family=URL)", kv)
		}
		switch k {
		case "openai", "anthropic", "gemini":
			out[k] = strings.TrimRight(v, "/")
		default:
			return nil, fmt.Errorf("unknown upstream family %q (want openai, anthropic or gemini)", k)
		}
	}
	return out, nil
}

// Family is the upstream family serving a dialect.
func Family(d conv.Dialect) string {
	switch d {
	case conv.OpenAIChat, conv.OpenAIResponses:
		return "openai"
	}
	return string(d)
}

// Recorder forwards requests upstream and writes recordings.
type Recorder struct {
	Dir       string
	Upstreams Upstreams
	Client    *http.Client
	MaxBody   int64

	mu       sync.Mutex
	files    map[string]*File
	inflight sync.WaitGroup
}

// NewRecorder makes a recorder writing into dir (created private: the
// recordings are the caller's conversations).
func NewRecorder(dir string, up Upstreams) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Recorder{Dir: dir, Upstreams: up, Client: &http.Client{Timeout: 10 * time.Minute}, MaxBody: 64 << 20, files: map[string]*File{}}, nil
}

// hop-by-hop and toolwire-only headers are not forwarded.
var dropHeaders = map[string]bool{"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Transfer-Encoding": true, "Upgrade": true, "Te": true, "Trailer": true, "Host": true, "Content-Length": true, "Accept-Encoding": true}

// Forward sends the request upstream with the caller's own credentials,
// copies the answer to w as it arrives, and records the exchange under the
// session's recording.
func (rc *Recorder) Forward(d conv.Dialect, sessionKey string, w http.ResponseWriter, r *http.Request, body []byte) (ex Exchange, err error) {
	rc.inflight.Add(1)
	defer rc.inflight.Done()
	base, ok := rc.Upstreams[Family(d)]
	if !ok {
		return Exchange{}, fmt.Errorf("no upstream for %s (give --upstream %s=URL)", d, Family(d))
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, base+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return Exchange{}, err
	}
	for k, vs := range r.Header {
		if dropHeaders[http.CanonicalHeaderKey(k)] || strings.HasPrefix(strings.ToLower(k), "x-toolwire-") {
			continue
		}
		req.Header[k] = vs
	}
	resp, err := rc.Client.Do(req)
	if err != nil {
		return Exchange{}, err
	}
	defer resp.Body.Close()
	ex = Exchange{Dialect: d, Method: r.Method, Path: RedactURI(r.URL.RequestURI(), sessionKey), Request: Redact(string(body), sessionKey), Status: resp.StatusCode, Headers: keptHeaders(resp.Header)}
	for k, v := range ex.Headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		ex.Events, ex.Separator, err = copyEvents(w, flusher, resp.Body)
		for i := range ex.Events {
			ex.Events[i].Data = Redact(ex.Events[i].Data, sessionKey)
		}
	} else {
		var b []byte
		b, err = io.ReadAll(io.LimitReader(resp.Body, rc.MaxBody))
		_, _ = w.Write(b)
		ex.Body = Redact(string(b), sessionKey)
	}
	if err != nil {
		// Cut short (the client or the server went away): keep what
		// arrived, marked, rather than lose the exchange.
		ex.Incomplete = true
		if serr := rc.save(sessionKey, ex); serr != nil {
			return ex, errors.Join(err, serr)
		}
		return ex, err
	}
	return ex, rc.save(sessionKey, ex)
}

// Wait waits until no exchange is being forwarded, or the timeout passes;
// it reports whether all finished. On shutdown the server closes its
// connections, which cuts in-flight exchanges short, then waits here so
// each is written (marked incomplete) before the process exits.
func (rc *Recorder) Wait(timeout time.Duration) bool {
	done := make(chan struct{})
	go func() { rc.inflight.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// copyEvents streams upstream bytes to the client and splits them into
// events on blank lines.
func copyEvents(w io.Writer, f http.Flusher, body io.Reader) ([]Event, string, error) {
	var events []Event
	sep := "\n\n"
	var cur Event
	br := bufio.NewReader(body)
	for {
		line, err := br.ReadString('\n')
		if len(line) > 0 {
			if _, werr := io.WriteString(w, line); werr != nil {
				return events, sep, werr
			}
			if f != nil {
				f.Flush()
			}
			if strings.HasSuffix(line, "\r\n") {
				sep = "\r\n\r\n"
			}
			trimmed := strings.TrimRight(line, "\r\n")
			switch {
			case trimmed == "":
				if cur.Data != "" || cur.Event != "" {
					events = append(events, cur)
				}
				cur = Event{}
			case strings.HasPrefix(trimmed, "event:"):
				cur.Event = strings.TrimSpace(strings.TrimPrefix(trimmed, "event:"))
			case strings.HasPrefix(trimmed, "data:"):
				d := strings.TrimPrefix(strings.TrimPrefix(trimmed, "data:"), " ")
				if cur.Data != "" {
					cur.Data += "\n"
				}
				cur.Data += d
			}
		}
		if err == io.EOF {
			if cur.Data != "" || cur.Event != "" {
				events = append(events, cur)
			}
			return events, sep, nil
		}
		if err != nil {
			return events, sep, err
		}
	}
}

func keptHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"Content-Type", "Retry-After", "Request-Id", "X-Request-Id", "Openai-Processing-Ms"} {
		if v := h.Get(k); v != "" {
			out[k] = v
		}
	}
	for k := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-ratelimit-") || strings.HasPrefix(lk, "anthropic-ratelimit-") {
			out[k] = h.Get(k)
		}
	}
	return out
}

// FileName is a recording's name: a hash of the session key, never the key.
func FileName(sessionKey string) string {
	sum := sha256.Sum256([]byte(sessionKey))
	return "rec-" + hex.EncodeToString(sum[:6])
}

func (rc *Recorder) save(sessionKey string, ex Exchange) error {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	name := FileName(sessionKey)
	f, ok := rc.files[name]
	if !ok {
		f = &File{Name: name, Recorded: time.Now().UTC()}
		rc.files[name] = f
	}
	f.Exchanges = append(f.Exchanges, ex)
	b, err := yaml.Marshal(f)
	if err != nil {
		return err
	}
	// Owner-only: a recording holds whole conversations. A fresh
	// temporary file, so a stale one's mode is not inherited.
	tmp := filepath.Join(rc.Dir, name+".yaml.tmp")
	_ = os.Remove(tmp)
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(rc.Dir, name+".yaml"))
}

var (
	secretKeyRE = regexp.MustCompile(`(?i)"(api[_-]?key|key|authorization|x-api-key|x-goog-api-key|token|access_token|secret|password)"\s*:\s*"[^"]*"`)
	// No \b before a key: in raw JSON a key often follows an escape
	// ("\nsk-…"). Over-redacting a look-alike is harmless; leaking a key is not.
	secretValRE  = regexp.MustCompile(`(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,}|ya29\.[0-9A-Za-z_\-]+)`)
	redactedText = "REDACTED"
	// jsonStringRE is one JSON string literal.
	jsonStringRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// secretParams are query parameter names (decoded, lower case) whose
// values are credentials.
var secretParams = map[string]bool{"key": true, "api_key": true, "apikey": true, "api-key": true, "x-goog-api-key": true,
	"access_token": true, "token": true, "auth": true, "authorization": true, "secret": true, "password": true}

// shortKey is the length under which a session key is replaced only where
// it stands alone (not inside a longer word): a key of one to three
// characters would otherwise take letters out of every body. From four
// characters on, every occurrence goes, inside a word too: a recording
// must not show the key at all.
const shortKey = 4

// Redact removes credentials from a body: the caller's own key wherever it
// appears, JSON fields named like secrets, and strings shaped like provider
// keys.
func Redact(s, sessionKey string) string {
	s = redactKey(s, sessionKey)
	s = secretKeyRE.ReplaceAllStringFunc(s, func(m string) string {
		k, _, _ := strings.Cut(m, ":")
		return k + `: "` + redactedText + `"`
	})
	return secretValRE.ReplaceAllString(s, redactedText)
}

// redactKey replaces the session key in every form it may take in a body:
// as is, URL-encoded (query or path), and JSON-escaped in any way an
// upstream may echo it ("\/", "\u00XX" …), found by decoding every JSON
// string literal that has an escape.
func redactKey(s, key string) string {
	if key == "" {
		return s
	}
	jsonForm, _ := json.Marshal(key)
	var noHTML bytes.Buffer
	enc := json.NewEncoder(&noHTML)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key)
	plainJSON := strings.TrimSuffix(noHTML.String(), "\n")
	plainJSON = plainJSON[1 : len(plainJSON)-1]
	forms := []string{key, url.QueryEscape(key), url.PathEscape(key), string(jsonForm[1 : len(jsonForm)-1]),
		plainJSON, strings.ReplaceAll(plainJSON, "/", `\/`)}
	for _, f := range forms {
		s = replaceKey(s, f)
	}
	if !strings.Contains(s, `\`) {
		return s
	}
	return jsonStringRE.ReplaceAllStringFunc(s, func(lit string) string {
		if !strings.Contains(lit, `\`) {
			return lit
		}
		var v string
		if json.Unmarshal([]byte(lit), &v) != nil {
			return lit
		}
		if r := replaceKey(v, key); r != v {
			b, _ := json.Marshal(r)
			return string(b)
		}
		return lit
	})
}

// replaceKey replaces every occurrence of key in s; a key shorter than
// shortKey only where no letter or digit touches it.
func replaceKey(s, key string) string {
	if key == "" {
		return s
	}
	if len(key) >= shortKey {
		return strings.ReplaceAll(s, key, redactedText)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, key)
		if i < 0 {
			break
		}
		end := i + len(key)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			b.WriteString(s[:i])
			b.WriteString(redactedText)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s)
	return b.String()
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// RedactURI removes credentials from a request URI: every query parameter
// whose decoded name is a credential's (so "?%6Bey=…" too), and the session
// key wherever else it appears, in any of its encoded forms.
func RedactURI(uri, sessionKey string) string {
	path, query, hasQuery := strings.Cut(uri, "?")
	if hasQuery {
		pairs := strings.Split(query, "&")
		for i, p := range pairs {
			rawName, _, _ := strings.Cut(p, "=")
			name, err := url.QueryUnescape(rawName)
			if err != nil {
				name = rawName
			}
			if secretParams[strings.ToLower(strings.TrimSpace(name))] {
				pairs[i] = rawName + "=" + redactedText
			}
		}
		uri = path + "?" + strings.Join(pairs, "&")
	}
	return redactKey(uri, sessionKey)
}

func redactQuery(uri string) string { return RedactURI(uri, "") }

// Replayer answers requests from recordings.
type Replayer struct {
	mu        sync.Mutex
	exchanges []Exchange
	used      map[int]bool
}

// LoadReplayer reads every recording in dir.
func LoadReplayer(dir string) (*Replayer, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	rp := &Replayer{used: map[int]bool{}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f File
		if err := yaml.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		rp.exchanges = append(rp.exchanges, f.Exchanges...)
	}
	if len(rp.exchanges) == 0 {
		return nil, fmt.Errorf("no recordings in %s", dir)
	}
	return rp, nil
}

// Canonical renders JSON with sorted keys and no insignificant space, so
// recordings match however a client orders its fields.
func Canonical(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v) // encoding/json sorts map keys
	return string(b)
}

// Find returns the recorded exchange for a request: the first unused exact
// match (so a conversation replays in order), else any exact match. With no
// match it returns the closest recording's description for the error.
func (rp *Replayer) Find(d conv.Dialect, method, uri, body string) (*Exchange, string) {
	want := Canonical(Redact(body, ""))
	path := redactQuery(uri)
	rp.mu.Lock()
	defer rp.mu.Unlock()
	first := -1
	for i, ex := range rp.exchanges {
		if ex.Dialect != d || ex.Method != method || ex.Path != path || Canonical(ex.Request) != want {
			continue
		}
		if !rp.used[i] {
			rp.used[i] = true
			return &rp.exchanges[i], ""
		}
		if first < 0 {
			first = i
		}
	}
	if first >= 0 {
		return &rp.exchanges[first], ""
	}
	best, bestScore := -1, -1
	for i, ex := range rp.exchanges {
		if ex.Dialect != d {
			continue
		}
		score := commonPrefix(Canonical(ex.Request), want)
		if ex.Path == path {
			score += 1 << 20
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return nil, "no recording for dialect " + string(d)
	}
	ex := rp.exchanges[best]
	c := Canonical(ex.Request)
	at := commonPrefix(c, want)
	return nil, fmt.Sprintf("closest recording: %s %s (request #%d of the recordings), which differs from this request at byte %d: recorded …%s… vs sent …%s…",
		ex.Method, ex.Path, best+1, at, excerpt(c, at), excerpt(want, at))
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func excerpt(s string, at int) string {
	lo, hi := max(0, at-20), min(len(s), at+40)
	return s[lo:hi]
}

// Write serves a recorded exchange, streaming events with their separator.
func (ex *Exchange) Write(w http.ResponseWriter) {
	for k, v := range ex.Headers {
		w.Header().Set(k, v)
	}
	w.WriteHeader(ex.Status)
	if len(ex.Events) == 0 {
		_, _ = io.WriteString(w, ex.Body)
		return
	}
	f, _ := w.(http.Flusher)
	sep := ex.Separator
	if sep == "" {
		sep = "\n\n"
	}
	nl := sep[:len(sep)/2] // a line ending of the same style
	for _, e := range ex.Events {
		var b strings.Builder
		if e.Event != "" {
			b.WriteString("event: " + e.Event + nl)
		}
		for i, line := range strings.Split(e.Data, "\n") {
			if i > 0 {
				b.WriteString(nl)
			}
			b.WriteString("data: " + line)
		}
		b.WriteString(sep)
		_, _ = io.WriteString(w, b.String())
		if f != nil {
			f.Flush()
		}
	}
}
