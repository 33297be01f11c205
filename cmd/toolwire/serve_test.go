package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	anthropicopt "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	openaiopt "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
)

// slowChat is a valid Chat Completions request that the latency fault holds
// for 300 ms before answering, long enough to be in flight at shutdown.
const slowChat = `{"model":"gpt-4.1","messages":[{"role":"user","content":"Say hello."}]}`

// running is one serve() under test.
type running struct {
	srv  *mockprovider.Server
	addr string
	done chan error // serve's return value
}

func startServe(t *testing.T, ctx context.Context) *running {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rs := &running{srv: mockprovider.New(mockprovider.Options{}), addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { rs.done <- serve(ctx, rs.srv, ln, 5*time.Second) }()
	t.Cleanup(func() {
		// A test that failed early still stops its server.
		select {
		case <-rs.done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not return")
		}
	})
	return rs
}

// result is a finished HTTP exchange.
type result struct {
	status int
	body   string
	err    error
}

// slowRequest sends slowChat on its own connection and reports its end.
func (rs *running) slowRequest(key string) <-chan result {
	out := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, "http://"+rs.addr+"/v1/chat/completions", strings.NewReader(slowChat))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(mockprovider.FaultHeader, "latency;ms=300")
		client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := client.Do(req)
		if err != nil {
			out <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		out <- result{status: resp.StatusCode, body: string(b), err: err}
	}()
	return out
}

// waitInFlight waits until the server has taken the request into its
// session (it then sits in the latency fault), so a shutdown that follows
// finds it in flight.
func (rs *running) waitInFlight(t *testing.T, key string, finished <-chan result) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if _, ok := rs.srv.Sessions().Lookup(key); ok {
			return
		}
		select {
		case r := <-finished:
			t.Fatalf("request finished before it was seen in flight: %+v", r)
		default:
		}
	}
	t.Fatal("the slow request never reached the server")
}

// waitRefused dials until the listener is gone and fails if it never goes.
// It reports whether the refusal came while the slow request was still
// being served.
func (rs *running) waitRefused(t *testing.T, finished <-chan result) (beforeCompletion bool, completed *result) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		conn, err := net.DialTimeout("tcp", rs.addr, time.Second)
		if err != nil {
			select {
			case r := <-finished:
				return false, &r
			default:
				return true, nil
			}
		}
		conn.Close()
	}
	t.Fatal("the listener still accepts connections after shutdown began")
	return false, nil
}

// checkGracefulShutdown is the shared body of the shutdown tests: trigger
// stops the server while a slow request is in flight.
func checkGracefulShutdown(t *testing.T, ctx context.Context, trigger func()) {
	rs := startServe(t, ctx)
	const key = "drain-session"
	finished := rs.slowRequest(key)
	rs.waitInFlight(t, key, finished)

	trigger()
	during, early := rs.waitRefused(t, finished)
	if !during {
		t.Fatalf("new connections were still accepted until the in-flight request had finished (%+v)", early)
	}
	var r result
	select {
	case r = <-finished:
	case <-time.After(10 * time.Second):
		t.Fatal("the in-flight request never finished")
	}
	if r.err != nil || r.status != http.StatusOK {
		t.Fatalf("in-flight request: status %d, err %v, body %s: want it drained with 200", r.status, r.err, r.body)
	}
	if !strings.Contains(r.body, `"chat.completion"`) {
		t.Errorf("in-flight request answered %s, want a chat completion", r.body)
	}
	select {
	case err := <-rs.done:
		if err != nil {
			t.Fatalf("serve returned %v after a clean drain", err)
		}
		rs.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return after draining")
	}
	if conn, err := net.DialTimeout("tcp", rs.addr, time.Second); err == nil {
		conn.Close()
		t.Fatal("a new connection was accepted after serve returned")
	}
	entries, _ := rs.srv.Sessions().Get(key).Journal()
	if len(entries) != 1 || entries[0].Status != http.StatusOK || entries[0].Fault != "latency" {
		t.Errorf("journal of the drained request: %+v", entries)
	}
}

// TestServeDrainsOnContextCancel: cancelling serve's context (what the
// command's context does on exit) stops accepting at once and lets the
// request in flight finish with its 200.
func TestServeDrainsOnContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	checkGracefulShutdown(t, ctx, cancel)
}

// TestServeDrainsOnSIGTERM sends the process a real SIGTERM: serve's
// signal handler (installed before it accepts, so before the request is in
// flight) turns it into the same drain, and the test process survives.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	checkGracefulShutdown(t, context.Background(), func() {
		if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	})
}

// TestServeReturnsListenerErrors: a listener that fails is reported, not
// swallowed as a clean shutdown.
func TestServeReturnsListenerErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = serve(context.Background(), mockprovider.New(mockprovider.Options{}), ln, time.Second)
	if err == nil || errors.Is(err, http.ErrServerClosed) {
		t.Fatalf("serve on a closed listener returned %v, want the accept error", err)
	}
}

// bannerEnv reads the NAME=VALUE pairs the banner prints.
func bannerEnv(t *testing.T, banner string) map[string]string {
	t.Helper()
	env := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(banner))
	for sc.Scan() {
		for _, field := range strings.Fields(sc.Text()) {
			if k, v, ok := strings.Cut(field, "="); ok && strings.ToUpper(k) == k && k != "" {
				env[k] = v
			}
		}
	}
	return env
}

// TestBannerNamesEverySDKVariable checks the banner's text: each SDK's
// base-URL and API-key variable, with the base URL each SDK needs (OpenAI's
// includes /v1, Anthropic's and Gemini's do not), and the admin URL.
func TestBannerNamesEverySDKVariable(t *testing.T) {
	var buf bytes.Buffer
	printBanner(&buf, "127.0.0.1:9999", 20, false)
	banner := buf.String()
	env := bannerEnv(t, banner)
	want := map[string]string{
		"OPENAI_BASE_URL":        "http://127.0.0.1:9999/v1",
		"ANTHROPIC_BASE_URL":     "http://127.0.0.1:9999",
		"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9999",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("banner sets %s=%q, want %q\n%s", k, env[k], v, banner)
		}
	}
	for _, k := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} {
		if _, ok := env[k]; !ok {
			t.Errorf("banner does not name %s\n%s", k, banner)
		}
	}
	for _, s := range []string{"strict rules", "20 scenarios", "http://127.0.0.1:9999/_toolwire/sessions", mockprovider.Version} {
		if !strings.Contains(banner, s) {
			t.Errorf("banner lacks %q\n%s", s, banner)
		}
	}
	buf.Reset()
	printBanner(&buf, "127.0.0.1:9999", 20, true)
	if !strings.Contains(buf.String(), "lenient rules") {
		t.Errorf("lenient banner does not say so:\n%s", buf.String())
	}
}

// TestBannerVariablesDriveTheSDKs takes the banner at its word: it exports
// exactly the variables it prints (the key placeholder replaced by a
// session name) and builds each official SDK client from the environment
// alone. Every client must reach the running server and land in its
// session.
func TestBannerVariablesDriveTheSDKs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rs := startServe(t, ctx)
	defer cancel()
	var buf bytes.Buffer
	printBanner(&buf, rs.addr, 0, false)
	env := bannerEnv(t, buf.String())
	session := map[string]string{"OPENAI_API_KEY": "banner-openai", "ANTHROPIC_API_KEY": "banner-anthropic", "GEMINI_API_KEY": "banner-gemini"}
	// Variables that would override the banner's if the caller had them.
	for _, k := range []string{"GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "ANTHROPIC_AUTH_TOKEN", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"} {
		t.Setenv(k, "")
	}
	for k, v := range env {
		if key, ok := session[k]; ok {
			v = key
		}
		t.Setenv(k, v)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer rcancel()

	oc := openai.NewClient(openaiopt.WithMaxRetries(0))
	if _, err := oc.Chat.Completions.New(rctx, openai.ChatCompletionNewParams{
		Model:    "gpt-4.1",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
	}); err != nil {
		t.Errorf("OpenAI SDK from the banner's environment: %v", err)
	}
	if _, err := oc.Responses.New(rctx, responsesParams()); err != nil {
		t.Errorf("OpenAI SDK (Responses) from the banner's environment: %v", err)
	}
	ac := anthropic.NewClient(anthropicopt.WithMaxRetries(0))
	if _, err := ac.Messages.New(rctx, anthropic.MessageNewParams{
		Model:     "claude-sonnet-4-5",
		MaxTokens: 64,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))},
	}); err != nil {
		t.Errorf("Anthropic SDK from the banner's environment: %v", err)
	}
	gc, err := genai.NewClient(rctx, &genai.ClientConfig{Backend: genai.BackendGeminiAPI})
	if err != nil {
		t.Fatalf("genai.NewClient from the banner's environment: %v", err)
	}
	if _, err := gc.Models.GenerateContent(rctx, "gemini-2.5-flash", genai.Text("hello"), nil); err != nil {
		t.Errorf("Gemini SDK from the banner's environment: %v", err)
	}
	wantRequests := map[string]int{"banner-openai": 2, "banner-anthropic": 1, "banner-gemini": 1}
	for key, n := range wantRequests {
		s, ok := rs.srv.Sessions().Lookup(key)
		if !ok {
			t.Errorf("no session %q: its SDK did not reach the server", key)
			continue
		}
		entries, _ := s.Journal()
		if len(entries) != n {
			t.Errorf("session %q journaled %d requests, want %d", key, len(entries), n)
		}
		for _, e := range entries {
			if e.Status != http.StatusOK {
				t.Errorf("session %q: %s %s answered %d", key, e.Method, e.Path, e.Status)
			}
		}
	}
}

func responsesParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model: "gpt-4.1",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hello")},
	}
}

// Beyond loopback the admin API needs a token; nothing is bound without one.
func TestServeNeedsAnAdminTokenBeyondLoopback(t *testing.T) {
	t.Setenv(AdminTokenEnv, "")
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:0"} {
		cmd := newServeCommand()
		cmd.SetArgs([]string{"--addr", addr})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--admin-token") {
			t.Errorf("--addr %s without a token: %v", addr, err)
		}
	}
}

// The token can come from the environment (how a container passes it),
// and the admin API then requires it.
func TestServeTakesTheAdminTokenFromTheEnvironment(t *testing.T) {
	t.Setenv(AdminTokenEnv, "env-token")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cmd := newServeCommand()
	cmd.SetArgs([]string{"--addr", addr, "--drain", "100ms"})
	cmd.SetOut(io.Discard)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not return")
		}
	}()
	get := func(token string) int {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/_toolwire/sessions", nil)
			if token != "" {
				req.Header.Set(mockprovider.AdminTokenHeader, token)
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
	if c := get(""); c != http.StatusUnauthorized {
		t.Errorf("no token: %d", c)
	}
	if c := get("env-token"); c != http.StatusOK {
		t.Errorf("token from the environment: %d", c)
	}
}
