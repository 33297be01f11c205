package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A --models file that cannot be read or parsed stops serve with an error
// naming the flag and the fault, before anything is bound.
func TestServeModelsFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("openai:\n  - {id: gpt-7, reasonin: true}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{filepath.Join(dir, "missing.yaml"): "no such file", bad: "reasonin"} {
		cmd := newServeCommand()
		cmd.SetArgs([]string{"--addr", "127.0.0.1:0", "--models", file})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--models") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", file, err)
		}
	}
}

// serve --models with a wildcard entry accepts made-up ids of that API,
// and still refuses unknown ids of the others.
func TestServeModelsWildcard(t *testing.T) {
	file := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(file, []byte("openai:\n  - {id: \"*\"}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cmd := newServeCommand()
	cmd.SetArgs([]string{"--addr", addr, "--drain", "100ms", "--models", file})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not return")
		}
	}()
	post := func(path, body string, headers ...string) int {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
			for i := 0; i+1 < len(headers); i += 2 {
				req.Header.Set(headers[i], headers[i+1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
				return resp.StatusCode
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
		}
	}
	if c := post("/v1/chat/completions", `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer k"); c != http.StatusOK {
		t.Errorf("made-up OpenAI id under the wildcard: %d", c)
	}
	if c := post("/v1/messages", `{"model":"claude-test","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
		"X-Api-Key", "k", "Anthropic-Version", "2023-06-01"); c != http.StatusNotFound {
		t.Errorf("made-up Anthropic id: %d", c)
	}
}
