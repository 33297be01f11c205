// Package refdriver is the reference driver of the conformance suite: the
// driver contract implemented on the official Go SDKs (openai-go for Chat
// Completions and Responses, anthropic-sdk-go, google.golang.org/genai),
// streamed and not. It converts MCP CallToolResults to each provider's
// native result the way the seeds prescribe, and, with a Break, makes one
// classic mistake on purpose so the suite can prove it catches it.
//
// This package is the shared core: task and environment, the tool run,
// the Mistake and kill-matrix types, the mistakes more than one dialect
// makes, the body edits and the command. Each dialect's loop and its
// mistakes table live in the dialect's directory
// (mockprovider/<dialect>/refdriver); suite/refdriver/dialects lists them.
package refdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/suite/task"
)

// Env is the driver contract's environment: each dialect's loop reads the
// variables its API's SDK reads (the dialect's Judge.DriverEnv names them).
type Env struct {
	// Get reads one variable ("" when unset).
	Get func(string) string
	// HTTPClient is used for every request (nil = a fresh client).
	HTTPClient *http.Client
}

// EnvFromOS reads the contract's environment variables.
func EnvFromOS() Env { return Env{Get: os.Getenv} }

// EnvFromMap reads the contract's variables through get (for a task's Env
// map, as sent to a --driver-url server).
func EnvFromMap(get func(string) string) Env { return Env{Get: get} }

// Endpoint is where a loop sends its requests: the base URL in urlVar and
// the key in the first of keyVars that is set.
func (e Env) Endpoint(urlVar string, keyVars ...string) (baseURL, key string, err error) {
	if baseURL, err = e.Var(urlVar); err != nil {
		return "", "", err
	}
	key, err = e.Var(keyVars...)
	return baseURL, key, err
}

// Var is the first of the variables names that is set, or an error naming
// them: a loop finds its base URL and key with it.
func (e Env) Var(names ...string) (string, error) {
	for _, n := range names {
		if e.Get != nil {
			if v := e.Get(n); v != "" {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("%s is not set in the environment", strings.Join(names, " or "))
}

// Dialect is the reference driver of one dialect, in the dialect's
// directory (mockprovider/<dialect>/refdriver, which links its SDK): the
// tool loop on the official SDK and the table of its mistakes.
type Dialect struct {
	Name conv.Dialect
	// Mistakes is the table as the shared code reads it.
	Mistakes []Mistake
	// Run performs one task with the mistake named brk (None: honest;
	// a name the table does not know: honest too) and returns the
	// model's final text.
	Run func(ctx context.Context, brk Break, env Env, t *task.Task) (string, error)
}

// Mistake is the row of the dialect's table named brk (the zero Mistake
// when there is none).
func (d *Dialect) Mistake(brk Break) Mistake { return *Find(d.Mistakes, brk) }

// Row is a dialect's mistake row: a Mistake, embedded, and the hooks of
// the dialect's own loop.
type Row interface{ Shared() Mistake }

// Shared is the part of a row every dialect's rows have.
func (m Mistake) Shared() Mistake { return m }

// Find finds the row named brk of a table (the zero row, which makes no
// mistake, when there is none: brk is None or a mistake of other
// dialects).
func Find[R Row](table []R, brk Break) *R {
	for i := range table {
		if brk != None && table[i].Shared().Name == brk {
			return &table[i]
		}
	}
	return new(R)
}

// Table is the shared part of each row of a dialect's table.
func Table[R Row](rows []R) []Mistake {
	out := make([]Mistake, len(rows))
	for i, r := range rows {
		out[i] = r.Shared()
	}
	return out
}

// HasHook reports whether a row (a Mistake, or a dialect's row embedding
// one) sets any hook: a row without one would run the honest loop under
// a mistake's name. The dialects' tests hold every row of their tables
// to it (CheckHooks).
func HasHook(row any) bool {
	v := reflect.ValueOf(row)
	for i := range v.NumField() {
		f := v.Field(i)
		switch v.Type().Field(i).Name {
		case "Mistake":
			f = f.FieldByName("Hooks")
		case "Name", "Description", "Kill", "Also":
			continue
		}
		if !f.IsZero() {
			return true
		}
	}
	return false
}

// CheckHooks fails t unless every row of a dialect's table makes its
// mistake (HasHook) and the honest row, Find's answer for None, makes
// none.
func CheckHooks[R Row](t testing.TB, table []R) {
	t.Helper()
	for _, r := range table {
		if !HasHook(r) {
			t.Errorf("%s: no hook", r.Shared().Name)
		}
	}
	if HasHook(*Find(table, None)) {
		t.Error("the honest row has a hook")
	}
}

// Driver runs tasks on the dialects' loops.
type Driver struct {
	Break    Break
	Dialects []Dialect
}

// Run performs one task and returns the model's final text.
func (d *Driver) Run(ctx context.Context, env Env, t *task.Task) (string, error) {
	if t.MaxTurns <= 0 {
		t.MaxTurns = 8
	}
	i := slices.IndexFunc(d.Dialects, func(dl Dialect) bool { return dl.Name == t.Dialect })
	if i < 0 {
		return "", fmt.Errorf("unknown dialect %q", t.Dialect)
	}
	dl := &d.Dialects[i]
	text, err := dl.Run(ctx, d.Break, env, t)
	if err == nil {
		m := dl.Mistake(d.Break)
		text = m.Final(text)
	}
	return text, err
}

// ErrTooManyTurns ends a loop that never reaches a text answer.
func ErrTooManyTurns(n int) error {
	return fmt.Errorf("no final text after %d model turns", n)
}

// ResultsAsText is the user-message text a results-as-user-text driver
// sends: each call's name and output.
func ResultsAsText(names []string, texts []string) string {
	var b strings.Builder
	b.WriteString("Tool results:")
	for i := range names {
		fmt.Fprintf(&b, "\n%s: %s", names[i], texts[i])
	}
	return b.String()
}

// rewriter is an http.RoundTripper that edits request bodies: the way a
// break variant makes mistakes the typed SDK params cannot express.
type rewriter struct {
	base http.RoundTripper
	edit func(body []byte) []byte
}

func (rw *rewriter) RoundTrip(r *http.Request) (*http.Response, error) {
	if rw.edit != nil && r.Body != nil && r.Method == http.MethodPost {
		b, err := io.ReadAll(r.Body)
		_ = r.Body.Close()
		if err != nil {
			return nil, err
		}
		b = rw.edit(b)
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	return rw.base.RoundTrip(r)
}

// drainOnClose reads a response body to its end before closing it. An
// SDK stops reading a stream at its last event ([DONE], message_stop),
// while the server may still be finishing the exchange (the mock
// journals it as its handler returns); reading on to the end of the
// body means that, when the driver reports, the provider is done with
// every request it sent.
type drainOnClose struct{ base http.RoundTripper }

func (d drainOnClose) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := d.base.RoundTrip(r)
	if err == nil && resp.Body != nil {
		resp.Body = &drainingBody{ReadCloser: resp.Body}
	}
	return resp, err
}

type drainingBody struct{ io.ReadCloser }

func (b *drainingBody) Close() error {
	// Bounded: a body that goes on is cut off after 1 MiB (or when the
	// request's context ends).
	_, _ = io.Copy(io.Discard, io.LimitReader(b.ReadCloser, 1<<20))
	return b.ReadCloser.Close()
}

// HTTPClient returns the client for a run, wrapping edit (a mistake's
// body rewrite, nil for none) around it.
func HTTPClient(env Env, edit func([]byte) []byte) *http.Client {
	var base http.RoundTripper = http.DefaultTransport
	if env.HTTPClient != nil && env.HTTPClient.Transport != nil {
		base = env.HTTPClient.Transport
	}
	base = drainOnClose{base: base}
	c := &http.Client{Transport: base}
	if env.HTTPClient != nil {
		c.Timeout = env.HTTPClient.Timeout
	}
	if edit != nil {
		c.Transport = &rewriter{base: base, edit: edit}
	}
	return c
}

// MustJSON marshals a value built by the driver (cannot fail).
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// MediaName is the name given to the i-th binary item of a result.
func MediaName(m task.Media, i int) string {
	if m.URI != "" {
		if j := strings.LastIndex(m.URI, "/"); j >= 0 && j < len(m.URI)-1 {
			return m.URI[j+1:]
		}
	}
	ext := "bin"
	if _, sub, ok := strings.Cut(m.MimeType, "/"); ok && sub != "" {
		ext = sub
		if sub == "plain" {
			ext = "txt"
		}
	}
	kind := "file"
	if m.IsImage() {
		kind = "image"
	}
	return fmt.Sprintf("%s_%d.%s", kind, i+1, ext)
}
