// Package record captures real provider traffic once and serves it back
// forever: in record mode the mock forwards each request (after journaling
// its rule violations) to the real API with the caller's own key, streams the
// answer back, and writes the exchange to a recording file with secrets
// redacted; in replay mode it answers from those files, event for event.
package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
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
	// upstream failed, the server shut down, the answer was over the
	// recording limit): what arrived is kept, IncompleteReason says why.
	Incomplete       bool   `yaml:"incomplete,omitempty" json:"incomplete,omitempty"`
	IncompleteReason string `yaml:"incomplete_reason,omitempty" json:"incomplete_reason,omitempty"`
	// Recorded is when the answer arrived (the older YAML files date the
	// whole session instead, in File.Recorded).
	Recorded time.Time `yaml:"recorded,omitempty" json:"recorded,omitzero"`
}

// Event is one server-sent event as it came, or one frame of an AWS
// event stream (Bedrock): its :event-type as Event, its payload as Data,
// its other headers (:message-type, :content-type, :exception-type…) in
// Headers.
type Event struct {
	Event string `yaml:"event,omitempty" json:"event,omitempty"`
	Data  string `yaml:"data" json:"data"`
	// Headers are an event-stream frame's headers other than :event-type.
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// Base64 marks a frame payload that is not text, kept as base64.
	Base64 bool `yaml:"base64,omitempty" json:"base64,omitempty"`
}

// File is a session's recording as earlier versions wrote it: one YAML
// document, rewritten on every save. Replay still reads it.
type File struct {
	Name      string     `yaml:"name" json:"name"`
	Recorded  time.Time  `yaml:"recorded" json:"recorded"`
	Exchanges []Exchange `yaml:"exchanges" json:"exchanges"`
}

// Upstreams maps a provider family ("openai", "anthropic", "gemini",
// "bedrock") to a base URL (scheme and host, e.g. https://api.openai.com).
type Upstreams map[string]string

// ParseUpstreams reads "openai=URL,anthropic=URL,gemini=URL,bedrock=URL".
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
		case "openai", "anthropic", "gemini", "bedrock":
			out[k] = strings.TrimRight(v, "/")
		default:
			return nil, fmt.Errorf("unknown upstream family %q (want openai, anthropic, gemini or bedrock)", k)
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

// DefaultMaxRecord is how much of one answer a recording keeps (after
// decompression) unless Recorder.MaxRecord says otherwise.
const DefaultMaxRecord = 64 << 20

// Recorder forwards requests upstream and writes recordings.
type Recorder struct {
	Dir       string
	Upstreams Upstreams
	// Client sends the upstream requests; whatever its CheckRedirect, no
	// redirect is followed (the caller's key must not reach another host).
	Client *http.Client
	// MaxRecord bounds what one exchange's recording keeps of the answer;
	// the client still gets all of it, and a recording cut there is marked
	// incomplete. Zero means DefaultMaxRecord.
	MaxRecord int64
	// Logger, when set, gets why an upstream could not be reached (the
	// client is told only that it could not).
	Logger *slog.Logger
	// AWS signs again the Bedrock requests a client signed with SigV4;
	// NewRecorder reads it from the environment. A Bedrock API key
	// (Authorization: Bearer) is forwarded as it is, like other keys.
	AWS AWSSigning

	// saveLocks serialise appends to one session's file; sessions hash to
	// a fixed set of locks, so nothing per session outlives its write.
	saveLocks [64]sync.Mutex
	written   atomic.Int64 // bytes appended to recordings, for tests
	inflight  sync.WaitGroup
}

// NewRecorder makes a recorder writing into dir (created private: the
// recordings are the caller's conversations).
func NewRecorder(dir string, up Upstreams) (*Recorder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Recorder{Dir: dir, Upstreams: up, Client: &http.Client{Timeout: 10 * time.Minute}, MaxRecord: DefaultMaxRecord,
		AWS: AWSSigningFromEnv(os.Getenv)}, nil
}

// ErrUpstreamUnreachable is what a client is told when the upstream could
// not be asked at all; the cause (address, dial error) goes to the log only.
var ErrUpstreamUnreachable = errors.New("upstream unreachable")

// hop-by-hop and toolwire-only headers are not forwarded; Accept-Encoding
// is replaced by identity (see Forward).
var dropHeaders = map[string]bool{"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Transfer-Encoding": true, "Upgrade": true, "Te": true, "Trailer": true, "Host": true, "Content-Length": true, "Accept-Encoding": true}

// Forward sends the request upstream with the caller's own credentials
// (a SigV4-signed Bedrock request signed again with the recorder's AWS
// credentials), copies the answer to w as it arrives, and records the
// exchange under the session's recording. A request marked WithOriginal
// goes upstream, and is recorded, as the client's own request. An error
// with a zero ex.Status means nothing was written to w; its message is
// safe to show the client.
func (rc *Recorder) Forward(d conv.Dialect, sessionKey string, w http.ResponseWriter, r *http.Request, body []byte) (ex Exchange, err error) {
	rc.inflight.Add(1)
	defer rc.inflight.Done()
	orig := original(d, r)
	d = orig.Dialect
	family := Family(d)
	base, ok := rc.Upstreams[family]
	if !ok {
		return Exchange{}, fmt.Errorf("no upstream for %s (give --upstream %s=URL)", d, family)
	}
	// The request is the client's: when it goes away, so does the upstream call.
	req, err := http.NewRequestWithContext(r.Context(), orig.Method, base+orig.URI, bytes.NewReader(body))
	if err != nil {
		return Exchange{}, rc.unreachable(family, err)
	}
	for k, vs := range orig.Header {
		if dropHeaders[http.CanonicalHeaderKey(k)] || strings.HasPrefix(strings.ToLower(k), "x-toolwire-") {
			continue
		}
		req.Header[k] = vs
	}
	// Identity, so the bytes the client gets are the bytes recorded and
	// the proxy never inflates a body it did not ask to be compressed.
	req.Header.Set("Accept-Encoding", "identity")
	if family == "bedrock" && isSigV4(orig.Header) {
		// Signed last: the signature covers the headers above.
		if err := rc.AWS.resign(req, orig.Header.Get("Authorization"), body, time.Now()); err != nil {
			return Exchange{}, err
		}
	}
	client := http.Client{Timeout: 10 * time.Minute}
	if rc.Client != nil {
		client = *rc.Client
	}
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		return Exchange{}, rc.unreachable(family, err)
	}
	defer resp.Body.Close()
	ex = Exchange{Dialect: d, Method: orig.Method, Path: RedactURI(orig.URI, sessionKey), Request: Redact(string(body), sessionKey),
		Status: resp.StatusCode, Headers: keptHeaders(resp.Header), Recorded: time.Now().UTC()}
	for k, v := range ex.Headers {
		w.Header().Set(k, v)
	}
	// Passed through as sent: an upstream that compresses unasked still
	// reaches the client readable.
	encoding := resp.Header.Get("Content-Encoding")
	if encoding != "" {
		w.Header().Set("Content-Encoding", encoding)
	}
	w.WriteHeader(resp.StatusCode)
	frames := isEventStream(resp.Header.Get("Content-Type"))
	stream := frames || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	kept, err := copyKeeping(w, stream, resp.Body, rc.maxRecord())
	data, cut := decoded(kept, encoding, rc.maxRecord())
	if err != nil {
		cut = err.Error()
	}
	switch {
	case frames:
		var bad string
		ex.Events, bad = parseFrames(data)
		for i := range ex.Events {
			if !ex.Events[i].Base64 {
				ex.Events[i].Data = Redact(ex.Events[i].Data, sessionKey)
			}
		}
		if cut == "" {
			cut = bad
		}
	case stream:
		ex.Events, ex.Separator = parseEvents(data)
		for i := range ex.Events {
			ex.Events[i].Data = Redact(ex.Events[i].Data, sessionKey)
		}
	default:
		ex.Body = Redact(string(data), sessionKey)
	}
	if cut != "" {
		// Cut short (the client or the server went away, the answer was
		// over the bound): keep what arrived, marked, rather than lose it.
		ex.Incomplete, ex.IncompleteReason = true, cut
	}
	if serr := rc.save(sessionKey, ex); serr != nil {
		return ex, errors.Join(err, serr)
	}
	return ex, err
}

func (rc *Recorder) maxRecord() int64 {
	if rc.MaxRecord > 0 {
		return rc.MaxRecord
	}
	return DefaultMaxRecord
}

// unreachable logs why the upstream could not be asked and returns what
// the client may know: not the address, not the dial error.
func (rc *Recorder) unreachable(family string, err error) error {
	if rc.Logger != nil {
		rc.Logger.Warn("toolwire record: upstream request failed", "family", family, "err", err)
	}
	return fmt.Errorf("%w (%s)", ErrUpstreamUnreachable, family)
}

// copyKeeping copies body to w as it arrives (flushing each piece of a
// stream) and keeps its first limit bytes. The error says why the copy
// ended early; kept.over tells whether more came than was kept.
func copyKeeping(w io.Writer, stream bool, body io.Reader, limit int64) (*boundedBuffer, error) {
	kept := &boundedBuffer{limit: limit}
	f, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			kept.Write(buf[:n])
			if _, werr := w.Write(buf[:n]); werr != nil {
				return kept, fmt.Errorf("the client went away: %w", werr)
			}
			if stream && f != nil {
				f.Flush()
			}
		}
		if rerr == io.EOF {
			return kept, nil
		}
		if rerr != nil {
			return kept, fmt.Errorf("reading the upstream answer: %w", rerr)
		}
	}
}

// boundedBuffer keeps the first limit bytes written to it.
type boundedBuffer struct {
	bytes.Buffer
	limit int64
	over  bool
}

func (b *boundedBuffer) Write(p []byte) {
	if room := b.limit - int64(b.Len()); int64(len(p)) > room {
		p, b.over = p[:max(room, 0)], true
	}
	b.Buffer.Write(p)
}

// decoded is the recordable form of what was kept: gzip inflated up to
// limit bytes (a small compressed answer may inflate to gigabytes), any
// other encoding left out. cut says why the result is not the whole answer.
func decoded(kept *boundedBuffer, encoding string, limit int64) (data []byte, cut string) {
	limitReached := fmt.Sprintf("the answer is over the recording limit of %d bytes; the client got all of it", limit)
	if kept.over {
		cut = limitReached
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "", "identity":
		return kept.Bytes(), cut
	case "gzip", "x-gzip":
	default:
		return nil, fmt.Sprintf("content-encoding %q is not decoded for recordings", encoding)
	}
	zr, err := gzip.NewReader(bytes.NewReader(kept.Bytes()))
	if err != nil {
		return nil, "gzip: " + err.Error()
	}
	data, err = io.ReadAll(io.LimitReader(zr, limit+1))
	switch {
	case int64(len(data)) > limit:
		return data[:limit], limitReached
	case err != nil && cut == "":
		cut = "gzip: " + err.Error()
	}
	return data, cut
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

// parseEvents splits a stream into events on blank lines and notes the
// separator the upstream used.
func parseEvents(data []byte) ([]Event, string) {
	var events []Event
	sep := "\n\n"
	var cur Event
	for len(data) > 0 {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i+1], data[i+1:]
		} else {
			line, data = data, nil
		}
		if bytes.HasSuffix(line, []byte("\r\n")) {
			sep = "\r\n\r\n"
		}
		trimmed := strings.TrimRight(string(line), "\r\n")
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
	if cur.Data != "" || cur.Event != "" {
		events = append(events, cur)
	}
	return events, sep
}

func keptHeaders(h http.Header) map[string]string {
	out := map[string]string{}
	// Location: a redirect is passed to the client, never followed here.
	// X-Amzn-Errortype names a Bedrock error's exception: the AWS SDKs
	// build their typed errors from it.
	for _, k := range []string{"Content-Type", "Retry-After", "Request-Id", "X-Request-Id", "Openai-Processing-Ms", "Location", "X-Amzn-Requestid", "X-Amzn-Errortype"} {
		if v := h.Get(k); v != "" {
			out[k] = v
		}
	}
	for k := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-ratelimit-") || strings.HasPrefix(lk, "anthropic-ratelimit-") || strings.HasPrefix(lk, "x-amzn-bedrock-") {
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

// RecordingExt is the extension of the files Recorder writes: JSON Lines,
// one exchange a line, so a save appends one line instead of rewriting
// the session. Replay also reads the ".yaml" files earlier versions wrote.
const RecordingExt = ".jsonl"

func (rc *Recorder) save(sessionKey string, ex Exchange) error {
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false) // readable bodies; Encode ends the line
	if err := enc.Encode(ex); err != nil {
		return err
	}
	name := FileName(sessionKey)
	h := fnv.New32a()
	h.Write([]byte(name))
	mu := &rc.saveLocks[h.Sum32()%uint32(len(rc.saveLocks))]
	mu.Lock()
	defer mu.Unlock()
	// Owner-only: a recording holds whole conversations.
	f, err := os.OpenFile(filepath.Join(rc.Dir, name+RecordingExt), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil { // a file left by someone else keeps no wider mode
		f.Close()
		return err
	}
	n, err := f.Write(line.Bytes())
	rc.written.Add(int64(n))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

var (
	secretKeyRE = regexp.MustCompile(`(?i)"(api[_-]?key|key|authorization|x-api-key|x-goog-api-key|token|access_token|secret|password|(?:aws_)?secret_?access_?key|(?:aws_)?session_?token|x-amz-security-token)"\s*:\s*"[^"]*"`)
	// No \b before a key: in raw JSON a key often follows an escape
	// ("\nsk-…"). Over-redacting a look-alike is harmless; leaking a key is not.
	// AWS: access key ids (AKIA long-term, ASIA temporary) and Bedrock API
	// keys, long-term (ABSK…) and short-term (bedrock-api-key-…, a presigned
	// URL in base64: aws-bedrock-token-generator's AUTH_PREFIX).
	secretValRE = regexp.MustCompile(`(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{30,}|ya29\.[0-9A-Za-z_\-]+|` +
		`(?:AKIA|ASIA)[A-Z0-9]{16}|ABSK[A-Za-z0-9+/=]{20,}|bedrock-api-key-[A-Za-z0-9+/=_\-]+)`)
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

// LoadReplayer reads every recording in dir: the JSON Lines files record
// mode writes and the YAML files earlier versions wrote (a session's YAML
// first, being older, when both are there).
func LoadReplayer(dir string) (*Replayer, error) {
	var paths []string
	for _, ext := range []string{".yaml", RecordingExt} {
		ps, err := filepath.Glob(filepath.Join(dir, "*"+ext))
		if err != nil {
			return nil, err
		}
		paths = append(paths, ps...)
	}
	stem := func(p string) string { return strings.TrimSuffix(p, filepath.Ext(p)) }
	sort.SliceStable(paths, func(i, j int) bool {
		if a, b := stem(paths[i]), stem(paths[j]); a != b {
			return a < b
		}
		return filepath.Ext(paths[i]) == ".yaml"
	})
	rp := &Replayer{used: map[int]bool{}}
	for _, p := range paths {
		var (
			exs []Exchange
			err error
		)
		if filepath.Ext(p) == ".yaml" {
			exs, err = readYAMLRecording(p)
		} else {
			exs, err = readJSONLRecording(p)
		}
		if err != nil {
			return nil, err
		}
		rp.exchanges = append(rp.exchanges, exs...)
	}
	if len(rp.exchanges) == 0 {
		return nil, fmt.Errorf("no recordings in %s", dir)
	}
	return rp, nil
}

func readYAMLRecording(path string) ([]Exchange, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f File
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f.Exchanges, nil
}

func readJSONLRecording(path string) ([]Exchange, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := ReadJSONL(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ReadJSONL reads the exchanges of one record-mode file, one a line.
func ReadJSONL(r io.Reader) ([]Exchange, error) {
	var out []Exchange
	dec := json.NewDecoder(r)
	for {
		var ex Exchange
		err := dec.Decode(&ex)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("exchange %d: %w", len(out)+1, err)
		}
		out = append(out, ex)
	}
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
	if isEventStream(ex.Headers["Content-Type"]) {
		// A bad event (data not base64) ends the stream there, as a
		// broken upstream stream would.
		_ = writeFrames(w, ex.Events)
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
