package agree

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

func gzipBase64(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// What real cassettes hold: an error body gzipped as !!binary, aiohttp's
// header names as tagged sequences, the API key in Gemini's query, a host
// that is not the real API's, and endpoints the mock does not serve.
func TestParseVCRReadsTheFormsCassettesTake(t *testing.T) {
	cassette := `interactions:
- request:
    body: '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}'
    headers:
      ? !!python/object/apply:multidict._multidict.istr
      - Content-Type
      : - application/json
    method: POST
    uri: https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIzaNOTAKEY
  response:
    body:
      string: !!binary |
        ` + gzipBase64(t, `{"error":{"code":400,"message":"* GenerateContentRequest.contents: contents is not specified\n","status":"INVALID_ARGUMENT"}}`) + `
    headers:
      Content-Encoding:
      - gzip
    status:
      code: 400
      message: Bad Request
- request:
    body: '{"model":"m","messages":[]}'
    headers:
      anthropic-beta:
      - tools-2024-04-04
      x-api-key:
      - sk-ant-secret
    method: POST
    uri: http://localhost:8080/v1/messages
  response:
    body:
      string: '{}'
    status:
      code: 200
- request:
    body: '{"input":"x"}'
    method: POST
    uri: https://api.openai.com/v1/embeddings
  response:
    body: {string: '{}'}
    status: {code: 200}
`
	exs, skipped, err := ParseVCR("c.yaml", []byte(cassette))
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != 2 || skipped != 1 {
		t.Fatalf("want 2 exchanges and 1 skipped, got %d, %d: %+v", len(exs), skipped, exs)
	}
	g := exs[0]
	if g.ID != "c.yaml#1" || g.Dialect != conv.Gemini || g.Path != "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse" || g.Status != 400 || !g.FromOfficialHost() {
		t.Errorf("gemini exchange read wrongly: %+v", g)
	}
	if msg := errorMessage([]byte(g.Body)); msg != "* GenerateContentRequest.contents: contents is not specified" {
		t.Errorf("gzipped error body not decoded: %q", g.Body)
	}
	a := exs[1]
	if a.Dialect != conv.Anthropic || a.FromOfficialHost() || a.Headers["anthropic-beta"] != "tools-2024-04-04" || len(a.Headers) != 1 || a.Body != "" {
		t.Errorf("anthropic exchange read wrongly (headers must keep the beta and drop the key): %+v", a)
	}
}

// A directory walk passes over YAML that is not a recording (the corpus's
// lists sit beside it) and lists a broken recording without losing the
// rest; named on its own, either is an error.
func TestLoadPassesOverListsInADirectory(t *testing.T) {
	dir := t.TempDir()
	line := `{"id":"x#1","dialect":"openai-chat","method":"POST","path":"/v1/chat/completions","request":"{}","status":200}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "known.yaml"), []byte("- id: x#1\n  category: c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil || len(got.Exchanges) != 1 || got.Exchanges[0].ID != "x#1" || len(got.Unreadable) != 0 {
		t.Fatalf("Load(dir) = %+v, %v", got, err)
	}
	if _, err := Load(filepath.Join(dir, "known.yaml")); err == nil {
		t.Fatal("a list named on its own was read as a recording")
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte(`{"id":"y","dialect":"gemini","surprise":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = Load(dir)
	if err != nil || len(got.Exchanges) != 1 || len(got.Unreadable) != 1 || !strings.Contains(got.Unreadable[0].Error(), "bad.jsonl: line 1") {
		t.Fatalf("a corpus line with an unknown member must be listed as unreadable, naming the file and line, the rest still read: %+v, %v", got, err)
	}
	if _, err := Load(filepath.Join(dir, "bad.jsonl")); err == nil {
		t.Fatal("a broken file named on its own must be an error")
	}
}

func TestExcerptShowsWhatTheMessageNames(t *testing.T) {
	req := `{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_0123456789","name":"f","input":{}}]},{"role":"user","content":"later"}]}`
	for _, tc := range []struct{ msg, want string }{
		{"messages.2: `tool_use` ids were found without `tool_result` blocks", `messages.2: {"content":"later","role":"user"}`},
		{"Invalid 'messages[1].content[0].id'", `messages.1.content.0.id: "toolu_0123456789"`},
		{"unknown id toolu_0123456789 here", `…{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_0123456789"`},
	} {
		if got := Excerpt(req, tc.msg); !strings.HasPrefix(got, tc.want) {
			t.Errorf("Excerpt(%q)\n got %s\nwant prefix %s", tc.msg, got, tc.want)
		}
	}
	gem := `{"contents":[{"role":"user","parts":[{"text":"a"}]},{"role":"model","parts":[{"functionCall":{"name":"f"}}]}]}`
	if got := Excerpt(gem, "GenerateContentRequest.contents[1].parts[0].function_call: name missing"); got != `contents.1.parts.0.function_call: {"name":"f"}` {
		t.Errorf("Gemini's snake_case path not followed into the camelCase request: %s", got)
	}
}

// Cassettes of one name in two folders (common: one per test module) must
// not share IDs, or a listed disagreement would name two exchanges.
func TestWalkedIDsNameTheFolder(t *testing.T) {
	dir := t.TempDir()
	cassette := "interactions:\n- request:\n    body: '{}'\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n  response:\n    body: {string: '{}'}\n    status: {code: 200}\n"
	for _, sub := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "c.yaml"), []byte(cassette), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Load(dir)
	if err != nil || len(got.Exchanges) != 2 || got.Exchanges[0].ID != "a/c.yaml#1" || got.Exchanges[1].ID != "b/c.yaml#1" {
		t.Fatalf("Load = %+v, %v", got, err)
	}
}
