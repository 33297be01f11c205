// Package agree replays recorded exchanges with the real provider APIs
// through the mock and reports each one where the mock's answer differs from
// the recording: a request the real API accepted and the mock refused (a
// false refusal), a request the real API refused and the mock accepted (a
// missed refusal), or a refusal worded or numbered differently.
//
// It reads three forms of recording: vcrpy cassettes (the YAML that
// pytest-recording and vcrpy write, found in many projects' test suites),
// toolwire's own record-mode files (mockprovider/record), and the corpus's
// JSON Lines (one Exchange a line, testdata/corpus/).
package agree

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// Exchange is one recorded request to a generation endpoint and what the
// real API answered. Only what judging the mock needs is kept: the answer
// of a success is its status alone, a refusal's body is kept whole.
type Exchange struct {
	// ID names the exchange stably: the file it came from and its place there.
	ID      string       `json:"id"`
	Dialect conv.Dialect `json:"dialect"`
	Method  string       `json:"method"`
	// Path is the request's path and query, credentials removed.
	Path string `json:"path"`
	// Headers are the request headers that change how the API reads a
	// request (anthropic-version, anthropic-beta, openai-beta), never
	// credentials.
	Headers map[string]string `json:"headers,omitempty"`
	Request string            `json:"request"`
	Status  int               `json:"status"`
	// Body is the answer's body when it is not a success (the error
	// envelope), else empty.
	Body string `json:"body,omitempty"`

	// host is where a cassette's request went (vcrpy keeps the whole URI).
	host string
}

// officialHosts are the real APIs' hosts.
var officialHosts = map[conv.Dialect]string{
	conv.OpenAIChat: "api.openai.com", conv.OpenAIResponses: "api.openai.com",
	conv.Anthropic: "api.anthropic.com", conv.Gemini: "generativelanguage.googleapis.com",
}

// FromOfficialHost reports whether a cassette's exchange went to the real
// API itself, not a compatible server or a proxy answering in its name.
func (ex Exchange) FromOfficialHost() bool { return ex.host == officialHosts[ex.Dialect] }

// keptHeaders are the request headers replayed: they select an API version
// or a beta surface, which decides what a request may contain.
var keptHeaders = []string{"anthropic-version", "anthropic-beta", "openai-beta"}

var geminiPath = regexp.MustCompile(`^/(v1beta|v1|v1alpha)/models/[^/:]+:(generateContent|streamGenerateContent)$`)

// DialectOf names the API a POST to path belongs to, or "" when it is not
// one of the four generation endpoints the mock impersonates.
func DialectOf(path string) conv.Dialect {
	p, _, _ := strings.Cut(path, "?")
	switch {
	case p == "/v1/chat/completions":
		return conv.OpenAIChat
	case p == "/v1/responses":
		return conv.OpenAIResponses
	case p == "/v1/messages":
		return conv.Anthropic
	case geminiPath.MatchString(p):
		return conv.Gemini
	}
	return ""
}

// cleanPath drops credential query parameters entirely (the replay sends
// its own key in a header) and keeps the rest (Gemini's alt=sse).
func cleanPath(u *url.URL) string {
	q := u.Query()
	for k := range q {
		switch strings.ToLower(k) {
		case "key", "api_key", "apikey", "api-key", "access_token", "token":
			q.Del(k)
		}
	}
	p := u.EscapedPath()
	if enc := q.Encode(); enc != "" {
		p += "?" + enc
	}
	return p
}

// Loaded is what Load read.
type Loaded struct {
	Exchanges []Exchange
	// Unread counts interactions with other endpoints (embeddings, model
	// lists, uploads), other methods and cut-short record-mode exchanges.
	Unread int
	// Unreadable are the files of a walked directory that could not be
	// read as recordings, each error naming its file: the rest of the
	// directory is still replayed.
	Unreadable []error
}

// Load reads every recording at the given paths: a file, or a directory
// walked for *.yaml, *.yml and *.jsonl. A file named on its own must be a
// recording; in a directory, YAML that is no recording (notes, lists) is
// passed over and a broken recording is listed in Unreadable.
func Load(paths ...string) (Loaded, error) {
	var out Loaded
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return Loaded{}, err
		}
		if !st.IsDir() {
			exs, unread, err := LoadFile(p)
			if err != nil {
				return Loaded{}, err
			}
			out.Exchanges = append(out.Exchanges, exs...)
			out.Unread += unread
			continue
		}
		var files []string
		err = filepath.WalkDir(p, func(f string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch strings.ToLower(filepath.Ext(f)) {
			case ".yaml", ".yml", ".jsonl":
				if !d.IsDir() {
					files = append(files, f)
				}
			}
			return nil
		})
		if err != nil {
			return Loaded{}, err
		}
		sort.Strings(files)
		for _, f := range files {
			rel, err := filepath.Rel(p, f)
			if err != nil {
				rel = f
			}
			exs, unread, err := loadFile(f, filepath.ToSlash(rel))
			switch {
			case errors.Is(err, ErrNotRecording):
			case err != nil:
				out.Unreadable = append(out.Unreadable, err)
			default:
				out.Exchanges = append(out.Exchanges, exs...)
				out.Unread += unread
			}
		}
	}
	return out, nil
}

// maxFile bounds what one recording may take in memory.
const maxFile = 256 << 20

// LoadFile reads one recording, telling its form by its content. IDs are
// the path and the exchange's place in the file (1-based) unless the file
// names them (the corpus); in a directory walk the path is taken from the
// directory, so cassettes of the same name in two folders stay apart.
func LoadFile(path string) ([]Exchange, int, error) {
	return loadFile(path, filepath.ToSlash(path))
}

func loadFile(path, name string) ([]Exchange, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, 0, err
	}
	if len(b) > maxFile {
		return nil, 0, fmt.Errorf("%s: larger than %d MiB", path, maxFile>>20)
	}
	exs, skipped, err := Parse(name, b)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	return exs, skipped, nil
}

// Parse reads a recording's bytes: JSON Lines of Exchange (the corpus),
// a record-mode file (JSON Lines of record.Exchange, or the YAML mapping
// with exchanges: that earlier versions wrote) or a vcrpy cassette
// (interactions:).
// name prefixes the IDs it makes.
func Parse(name string, b []byte) ([]Exchange, int, error) {
	trimmed := bytes.TrimLeft(b, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		if isCorpus(trimmed) {
			return parseCorpus(b)
		}
		exs, err := record.ReadJSONL(bytes.NewReader(b))
		if err != nil {
			return nil, 0, err
		}
		return fromRecording(name, exs)
	}
	var probe yaml.Node
	if err := yaml.Unmarshal(b, &probe); err != nil {
		return nil, 0, fmt.Errorf("neither JSON Lines nor YAML: %w", err)
	}
	top := map[string]bool{}
	if len(probe.Content) == 1 && probe.Content[0].Kind == yaml.MappingNode {
		m := probe.Content[0]
		for i := 0; i < len(m.Content); i += 2 {
			top[m.Content[i].Value] = true
		}
	}
	switch {
	case top["interactions"]:
		return ParseVCR(name, b)
	case top["exchanges"]:
		return parseRecording(name, b)
	}
	return nil, 0, ErrNotRecording
}

// ErrNotRecording is a YAML file that is neither a cassette nor a
// record-mode file. A directory walk passes over such files (a corpus
// directory holds lists and notes beside the recordings).
var ErrNotRecording = errors.New("not a recording: no interactions: (vcrpy cassette) or exchanges: (toolwire record) at the top")

func parseCorpus(b []byte) ([]Exchange, int, error) {
	var out []Exchange
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), maxFile)
	line := 0
	for sc.Scan() {
		line++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var ex Exchange
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ex); err != nil {
			return nil, 0, fmt.Errorf("line %d: %w", line, err)
		}
		if ex.ID == "" || ex.Dialect == "" || ex.Path == "" || ex.Status == 0 {
			return nil, 0, fmt.Errorf("line %d: an exchange needs id, dialect, path and status", line)
		}
		if ex.Method == "" {
			ex.Method = "POST"
		}
		out = append(out, ex)
	}
	return out, 0, sc.Err()
}

// isCorpus tells the corpus's JSON Lines (each line names its exchange's
// id) from record mode's (which does not).
func isCorpus(b []byte) bool {
	first, _, _ := bytes.Cut(b, []byte("\n"))
	var probe struct {
		ID *string `json:"id"`
	}
	return json.Unmarshal(first, &probe) == nil && probe.ID != nil
}

func parseRecording(name string, b []byte) ([]Exchange, int, error) {
	var f record.File
	if err := yaml.Unmarshal(b, &f); err != nil {
		return nil, 0, err
	}
	return fromRecording(name, f.Exchanges)
}

func fromRecording(name string, exchanges []record.Exchange) ([]Exchange, int, error) {
	var out []Exchange
	skipped := 0
	for i, rx := range exchanges {
		d := rx.Dialect
		if d == "" {
			d = DialectOf(rx.Path)
		}
		if d == "" || rx.Incomplete || !strings.EqualFold(rx.Method, "POST") {
			skipped++
			continue
		}
		u, err := url.ParseRequestURI(rx.Path)
		if err != nil {
			return nil, 0, fmt.Errorf("exchange %d: path %q: %w", i+1, rx.Path, err)
		}
		ex := Exchange{ID: fmt.Sprintf("%s#%d", name, i+1), Dialect: d, Method: rx.Method, Path: cleanPath(u), Request: rx.Request, Status: rx.Status}
		if !success(rx.Status) {
			ex.Body = rx.Body
		}
		out = append(out, ex)
	}
	return out, skipped, nil
}

// cassette is the part of a vcrpy cassette replay needs. Bodies are any:
// vcrpy writes a string, null, or bytes (!!binary, which the YAML decoder
// turns into a string), and some serializers a mapping.
type cassette struct {
	Interactions []struct {
		Request struct {
			Body    any       `yaml:"body"`
			Headers yaml.Node `yaml:"headers"`
			Method  string    `yaml:"method"`
			URI     string    `yaml:"uri"`
		} `yaml:"request"`
		Response struct {
			Status struct {
				Code int `yaml:"code"`
			} `yaml:"status"`
			Headers yaml.Node `yaml:"headers"`
			Body    any       `yaml:"body"`
			Content any       `yaml:"content"`
		} `yaml:"response"`
	} `yaml:"interactions"`
}

// ParseVCR reads a vcrpy cassette. Interactions with other endpoints are
// skipped, as are those whose status or body could not be read.
func ParseVCR(name string, b []byte) ([]Exchange, int, error) {
	var c cassette
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, 0, err
	}
	var out []Exchange
	skipped := 0
	for i, it := range c.Interactions {
		u, err := url.Parse(it.Request.URI)
		if err != nil {
			skipped++
			continue
		}
		d := DialectOf(u.EscapedPath())
		status := it.Response.Status.Code
		reqBody, ok := bodyText(it.Request.Body)
		if d == "" || status == 0 || !ok || !strings.EqualFold(it.Request.Method, "POST") {
			skipped++
			continue
		}
		ex := Exchange{ID: fmt.Sprintf("%s#%d", name, i+1), Dialect: d, Method: strings.ToUpper(it.Request.Method), Path: cleanPath(u), Request: reqBody, Status: status, host: strings.ToLower(u.Hostname())}
		for _, k := range keptHeaders {
			if v := headerValue(it.Request.Headers, k); v != "" {
				if ex.Headers == nil {
					ex.Headers = map[string]string{}
				}
				ex.Headers[k] = v
			}
		}
		if !success(status) {
			body := it.Response.Body
			if m, ok := body.(map[string]any); ok {
				body = m["string"]
			}
			if body == nil {
				body = it.Response.Content
			}
			text, _ := bodyText(body)
			ex.Body = decodeContent(text, headerValue(it.Response.Headers, "content-encoding"))
		}
		out = append(out, ex)
	}
	return out, skipped, nil
}

// bodyText is a cassette body as text; a mapping (a serializer that parsed
// the JSON) is written back as JSON.
func bodyText(v any) (string, bool) {
	switch t := v.(type) {
	case nil:
		return "", true
	case string:
		return t, true
	case map[string]any, []any:
		b, err := json.Marshal(t)
		return string(b), err == nil
	}
	return "", false
}

// headerValue finds a header in a cassette's header mapping. Names are
// plain strings, or (aiohttp's cassettes) a tagged sequence holding the
// name; values a list of strings or one string.
func headerValue(h yaml.Node, name string) string {
	if h.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(h.Content); i += 2 {
		k, v := h.Content[i], h.Content[i+1]
		if k.Kind == yaml.SequenceNode && len(k.Content) > 0 {
			k = k.Content[0]
		}
		if k.Kind != yaml.ScalarNode || !strings.EqualFold(k.Value, name) {
			continue
		}
		switch v.Kind {
		case yaml.ScalarNode:
			return v.Value
		case yaml.SequenceNode:
			var vs []string
			for _, e := range v.Content {
				if e.Kind == yaml.ScalarNode {
					vs = append(vs, e.Value)
				}
			}
			return strings.Join(vs, ",")
		}
	}
	return ""
}

// decodeContent undoes gzip, which cassettes often keep as recorded (the
// body as !!binary); anything else is returned as it is.
func decodeContent(s, encoding string) string {
	if !strings.Contains(strings.ToLower(encoding), "gzip") && !strings.HasPrefix(s, "\x1f\x8b") {
		return s
	}
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxFile))
	if err != nil {
		return s
	}
	return string(b)
}

func success(status int) bool { return status >= 200 && status < 300 }
