//go:build unix

// unix: the named-pipe attack needs syscall.Mkfifo.

package mockprovider_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
)

// Hostile tool schemas, posted to the running mock in every dialect (each
// request under a hang guard; the mock is on loopback).

// schemaDialect posts one tool with parameters as the dialect spells it.
type schemaDialect struct {
	name string
	path string
	hdr  func(key string) map[string]string
	body func(params string) string
}

var schemaDialects = []schemaDialect{
	{"chat", "/v1/chat/completions", bearer, func(p string) string {
		return `{"model":"gpt-4o","messages":[{"role":"user","content":"go"}],"tools":[{"type":"function","function":{"name":"f","parameters":` + p + `}}]}`
	}},
	{"responses", "/v1/responses", bearer, func(p string) string {
		return `{"model":"gpt-4o","input":"go","tools":[{"type":"function","name":"f","parameters":` + p + `}]}`
	}},
	{"anthropic", "/v1/messages", anthropicHeaders, func(p string) string {
		return `{"model":"claude-sonnet-4-5","max_tokens":256,"tools":[{"name":"f","input_schema":` + p + `}],"messages":[{"role":"user","content":"go"}]}`
	}},
	{"gemini", "/v1beta/models/gemini-2.5-flash:generateContent", func(key string) map[string]string { return map[string]string{"x-goog-api-key": key} }, func(p string) string {
		return `{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":` + p + `}]}]}`
	}},
}

func bearer(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }

// A $ref naming a file, a relative document or a named pipe is never
// loaded: the answer shows no file content, no path of the server, and
// the pipe is never opened (opening it blocked the request for good). The
// ref sits both where the OpenAI check compiles the schema and inside a
// oneOf, which argument synthesis compiles for every dialect.
func TestToolSchemaRefsStayLocal(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	fifo := filepath.Join(t.TempDir(), "pipe.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Were the mock blocked opening the pipe, this lets it go at the end
	// (the test has failed by then).
	t.Cleanup(func() {
		if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			syscall.Close(fd)
		}
	})
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{"file:///etc/passwd", "file:///no/such/file.json", "passwd.json", "../../../../../etc/passwd", "file://" + fifo, "https://example.com/schema.json"}
	for _, d := range schemaDialects {
		t.Run(d.name, func(t *testing.T) { refsStayLocal(t, ts, d, refs, cwd, fifo) })
	}
	// Nothing holds the pipe open for reading: writing to it fails.
	if fd, err := syscall.Open(fifo, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		syscall.Close(fd)
		t.Error("the mock opened the named pipe a $ref named")
	}
}

func refsStayLocal(t *testing.T, ts *mockprovider.TestServer, d schemaDialect, refs []string, cwd, fifo string) {
	for i, ref := range refs {
		r, _ := json.Marshal(ref)
		for j, params := range []string{
			fmt.Sprintf(`{"type":"object","properties":{"a":{"$ref":%s}},"required":["a"]}`, r),
			fmt.Sprintf(`{"type":"object","properties":{"a":{"oneOf":[{"$ref":%s},{"type":"integer"}]}},"required":["a"]}`, r),
		} {
			key := fmt.Sprintf("ref-%s-%d-%d", d.name, i, j)
			code, body := postWithin(t, 10*time.Second, ts.URL+d.path, d.hdr(key), d.body(params))
			for _, leak := range []string{"root:", "invalid character", "no such file", cwd, fifo, "/tmp/"} {
				// The Responses object echoes the request's tools: what the
				// client sent is not a leak.
				if strings.Contains(body, leak) && !strings.Contains(params, leak) {
					t.Errorf("%s, $ref %s: the %d answer shows %q: %.400s", d.name, ref, code, leak, body)
				}
			}
			if code != 200 && code != 400 {
				t.Errorf("%s, $ref %s: %d %.300s", d.name, ref, code, body)
			}
		}
	}
}

// A schema whose $ref leaves the document is neither followed nor refused
// by the OpenAI check: no public capture shows the API refusing one.
func TestRemoteRefIsNotFollowedNorRefused(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, d := range schemaDialects[:2] {
		code, body := postWithin(t, 10*time.Second, ts.URL+d.path, bearer("remote-"+d.name), d.body(`{"type":"object","properties":{"a":{"$ref":"passwd.json"}}}`))
		if code != 200 || strings.Contains(body, "no such file") || strings.Contains(body, "only local references") {
			t.Errorf("%s: %d %.400s", d.name, code, body)
		}
	}
}

// nested is a schema of the given depth: objects each with one property.
func nested(levels int, leaf string) string {
	return strings.Repeat(`{"type":"object","properties":{"a":`, levels) + leaf + strings.Repeat(`}}`, levels)
}

// A 4,000-level schema (150 KB) is answered promptly in every dialect.
// The guard is generous: at 2,000 levels the schema check alone took
// 37 s on Chat and Responses, and a type error at 4,000 levels 46 s on
// Gemini.
func TestDeepToolSchemaIsAnsweredPromptly(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	const levels = 4000
	for _, d := range schemaDialects {
		code, body := postWithin(t, 20*time.Second, ts.URL+d.path, d.hdr("deep-"+d.name), d.body(nested(levels, `{"type":"string"}`)))
		if code != 200 {
			t.Errorf("%s: %d %.300s", d.name, code, body)
		}
	}
	// Gemini's own Schema message, with a type error at the bottom: the
	// error names the field by its full path.
	params := strings.ReplaceAll(nested(levels, `{"type":99}`), `"object"`, `"OBJECT"`) // 99: no Type has that number
	code, body := postWithin(t, 20*time.Second, ts.URL+"/v1beta/models/gemini-2.5-flash:generateContent", map[string]string{"x-goog-api-key": "deep-gemini-type"},
		`{"contents":[{"role":"user","parts":[{"text":"go"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":`+params+`}]}]}`)
	if code != 400 || !strings.Contains(body, strings.Repeat(".properties[0].value", 3)) {
		t.Errorf("gemini type error: %d %.300s", code, body)
	}
}

// 2,000 required properties of minLength 65,536 (a 100 KB request) once
// made a 131 MB answer; the arguments now stop at the synthesis budget
// (about 1 MiB), in every dialect, and the journal says so.
func TestManyLongStringsStayWithinTheBudget(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	props, req := make([]string, 2000), make([]string, 2000)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string","minLength":65536}`, i)
		req[i] = fmt.Sprintf(`"p%d"`, i)
	}
	params := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	for _, d := range schemaDialects {
		key := "budget-" + d.name
		code, body := postWithin(t, 20*time.Second, ts.URL+d.path, d.hdr(key), d.body(params))
		if code != 200 {
			t.Fatalf("%s: %d %.300s", d.name, code, body)
		}
		// The budget, plus the request's own property names (each
		// present, null past the budget), plus the envelope.
		if limit := 1<<20 + 2*len(params); len(body) > limit {
			t.Errorf("%s: answer of %d bytes, want at most %d", d.name, len(body), limit)
		}
		j := ts.Journal(key)
		if len(j) != 1 || !strings.Contains(strings.Join(j[0].Notes, "\n"), "synthesis budget") {
			t.Errorf("%s: journal notes %+v", d.name, j)
		}
	}
}
