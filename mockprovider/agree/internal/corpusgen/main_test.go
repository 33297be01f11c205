package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/agree"
)

func interaction(uri, body string, status int) string {
	b, _ := json.Marshal(body)
	return "- request:\n    body: " + string(b) + "\n    headers:\n      Authorization:\n      - Bearer sk-proj-abcdefghijklmnopqrstuvwx\n    method: POST\n    uri: " + uri +
		"\n  response:\n    body:\n      string: '{\"error\":{\"message\":\"bad\"}}'\n    status:\n      code: " + itoa(status) + "\n"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// What the corpus keeps from a cassette: tool exchanges and refusals from
// the real API's host, plain successes up to the cap, each request once,
// no credentials; and where it came from.
func TestRunKeepsWhatJudgesTheMock(t *testing.T) {
	root, corpus := t.TempDir(), t.TempDir()
	const chat = "https://api.openai.com/v1/chat/completions"
	tool := `{"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}]}`
	cassette := "interactions:\n" +
		interaction(chat, tool, 200) +
		interaction(chat, tool, 200) + // the same request again: kept once
		interaction(chat, `{"model":"m","messages":[{"role":"user","content":"plain 1"}]}`, 200) +
		interaction(chat, `{"model":"m","messages":[{"role":"user","content":"plain 2"}]}`, 200) + // over the cap of 1
		interaction(chat, `{"model":"m","messages":[]}`, 400) +
		interaction(chat, `{"model":"m","messages":[{"role":"user","content":"k"}]}`, 401) + // a credential refusal
		interaction("http://localhost:11434/v1/chat/completions", tool, 200) // not the real API
	if err := os.MkdirAll(filepath.Join(root, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tests", "c.yaml"), []byte(cassette), 0o644); err != nil {
		t.Fatal(err)
	}
	src := Source{ID: "demo", Repository: "https://github.com/example/demo", Commit: "0123456789abcdef", Licence: "MIT"}
	if err := run(corpus, src, root, 1, 1<<20, []string{"tests/c.yaml"}); err != nil {
		t.Fatal(err)
	}
	loaded, err := agree.Load(filepath.Join(corpus, "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ex := range loaded.Exchanges {
		got = append(got, ex.ID)
		if ex.Headers["Authorization"] != "" || strings.Contains(ex.Request+ex.Body, "sk-proj") {
			t.Errorf("%s keeps a credential: %+v", ex.ID, ex)
		}
	}
	if want := "demo/tests/c.yaml#1 demo/tests/c.yaml#3 demo/tests/c.yaml#5"; strings.Join(got, " ") != want {
		t.Errorf("kept %v, want %s", got, want)
	}
	if ex := loaded.Exchanges[2]; ex.Status != 400 || ex.Body == "" {
		t.Errorf("a refusal must keep its body: %+v", ex)
	}
	b, err := os.ReadFile(filepath.Join(corpus, "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sources []Source
	if err := json.Unmarshal(b, &sources); err != nil || len(sources) != 1 || sources[0].Exchanges["openai-chat"] != 3 || sources[0].Files[0].Path != "tests/c.yaml" {
		t.Errorf("sources.json: %s (%v)", b, err)
	}
	md, _ := os.ReadFile(filepath.Join(corpus, "SOURCES.md"))
	if !strings.Contains(string(md), "| demo | https://github.com/example/demo | `0123456789ab` | MIT | 3 | 0 | 0 | 0 |") {
		t.Errorf("SOURCES.md lacks the source's row:\n%s", md)
	}
}
