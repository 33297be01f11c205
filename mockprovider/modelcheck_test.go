package mockprovider_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	anthropicoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/coder/websocket"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/tidwall/gjson"
	"google.golang.org/genai"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// modelCall is one request naming a model, and how each API words its
// not-found answer.
type modelCall struct {
	name, method, path string
	headers            map[string]string
	body               string
	rule, message      string
	// messagePath finds the message in the envelope.
	messagePath string
}

func oaiCall(name, path, body, rule, model string) modelCall {
	return modelCall{name: name, method: http.MethodPost, path: path, body: body, rule: rule,
		headers: map[string]string{"Authorization": "Bearer sk-models"}, messagePath: "error.message",
		message: "The model `" + model + "` does not exist or you do not have access to it."}
}

func antCall(name, path, body, model string) modelCall {
	return modelCall{name: name, method: http.MethodPost, path: path, body: body, rule: "anthropic.model-exists",
		headers: map[string]string{"X-Api-Key": "sk-models", "Anthropic-Version": "2023-06-01"}, messagePath: "error.message",
		message: "model: " + model}
}

func gemCall(name, version, model, method, spelt string) modelCall {
	return modelCall{name: name, method: http.MethodPost, path: "/" + version + "/models/" + model + ":" + method,
		body: `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, rule: "gemini.model-exists",
		headers: map[string]string{"X-Goog-Api-Key": "sk-models"}, messagePath: "error.message",
		message: "models/" + strings.TrimPrefix(model, "models/") + " is not found for API version " + version + ", or is not supported for " + spelt +
			". Call ModelService.ListModels to see the list of available models and their supported methods."}
}

func sendModelCall(t *testing.T, ts *mockprovider.TestServer, c modelCall, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

const chatTemplate = `{"model":"%s","messages":[{"role":"user","content":"hi"}]%s}`

func chatBodyWith(model, extra string) string {
	return strings.Replace(strings.Replace(chatTemplate, "%s", model, 1), "%s", extra, 1)
}

// Every endpoint that takes a model answers an unknown id with its API's
// 404, names the model-exists rule, journals it, and serves a catalog id.
func TestUnknownModelRefusedOnEveryEndpoint(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	const resp = `{"model":"%s","input":"hi"%s}`
	responsesBody := func(model, extra string) string {
		return strings.Replace(strings.Replace(resp, "%s", model, 1), "%s", extra, 1)
	}
	antBody := func(model string, extra string) string {
		return `{"model":"` + model + `","max_tokens":64,"messages":[{"role":"user","content":"hi"}]` + extra + `}`
	}
	for _, tc := range []struct {
		call modelCall
		good string // the same request with a served model
	}{
		{oaiCall("chat", "/v1/chat/completions", chatBodyWith("gpt-test", ""), "openai-chat.model-exists", "gpt-test"), chatBodyWith("gpt-4o-2024-08-06", "")},
		{oaiCall("chat streamed", "/v1/chat/completions", chatBodyWith("gpt-test", `,"stream":true`), "openai-chat.model-exists", "gpt-test"), chatBodyWith("gpt-4o-mini", `,"stream":true`)},
		{oaiCall("chat fine-tune of an unknown base", "/v1/chat/completions", chatBodyWith("ft:gpt-9:acme::x1", ""), "openai-chat.model-exists", "ft:gpt-9:acme::x1"), chatBodyWith("ft:gpt-4o-mini-2024-07-18:acme::x1", "")},
		{oaiCall("responses", "/v1/responses", responsesBody("gpt-test", ""), "openai-responses.model-exists", "gpt-test"), responsesBody("gpt-5", "")},
		{oaiCall("responses streamed", "/v1/responses", responsesBody("gpt-test", `,"stream":true`), "openai-responses.model-exists", "gpt-test"), responsesBody("o4-mini", `,"stream":true`)},
		{oaiCall("responses input_tokens", "/v1/responses/input_tokens", responsesBody("gpt-test", ""), "openai-responses.model-exists", "gpt-test"), responsesBody("gpt-4.1", "")},
		{antCall("messages", "/v1/messages", antBody("claude-test", ""), "claude-test"), antBody("claude-sonnet-4-5-20250929", "")},
		{antCall("messages streamed", "/v1/messages", antBody("claude-test", `,"stream":true`), "claude-test"), antBody("claude-haiku-4-5", `,"stream":true`)},
		{antCall("count_tokens", "/v1/messages/count_tokens", `{"model":"claude-test","messages":[{"role":"user","content":"hi"}]}`, "claude-test"),
			`{"model":"claude-opus-4-7","messages":[{"role":"user","content":"hi"}]}`},
		{gemCall("gemini v1beta", "v1beta", "gemini-1.5-flash", "generateContent", "generateContent"), ""},
		{gemCall("gemini v1 streamed", "v1", "gemini-test", "streamGenerateContent", "StreamGenerateContent"), ""},
		{gemCall("gemini v1alpha countTokens", "v1alpha", "gemini-test", "countTokens", "countTokens"), ""},
	} {
		t.Run(tc.call.name, func(t *testing.T) {
			key := "sk-models-" + strings.ReplaceAll(tc.call.name, " ", "-")
			tc.call.headers = withKey(tc.call.headers, key)
			status, hdr, body := sendModelCall(t, ts, tc.call, tc.call.body)
			if status != http.StatusNotFound || hdr.Get(wire.RuleHeader) != tc.call.rule || gjson.Get(body, tc.call.messagePath).String() != tc.call.message {
				t.Fatalf("status %d, %s %q: %s", status, wire.RuleHeader, hdr.Get(wire.RuleHeader), body)
			}
			if strings.HasPrefix(tc.call.rule, "openai") && (gjson.Get(body, "error.code").String() != "model_not_found" || gjson.Get(body, "error.param").Type != gjson.Null) {
				t.Errorf("OpenAI envelope: %s", body)
			}
			if tc.call.rule == "gemini.model-exists" && gjson.Get(body, "error.status").String() != "NOT_FOUND" {
				t.Errorf("Google envelope: %s", body)
			}
			if !hasViolation(ts, key, tc.call.rule) {
				t.Errorf("%s not journaled: %+v", tc.call.rule, ts.Violations(key))
			}
			good := tc.good
			if tc.call.rule == "gemini.model-exists" {
				tc.call.path = strings.Replace(strings.Replace(tc.call.path, "gemini-1.5-flash", "gemini-2.5-flash", 1), "gemini-test", "models/gemini-3-flash-preview", 1)
				tc.call.path = strings.Replace(tc.call.path, "/models/models/", "/models/", 1)
				good = tc.call.body
			}
			if status, _, body := sendModelCall(t, ts, tc.call, good); status != http.StatusOK {
				t.Errorf("served model: %d %s", status, body)
			}
		})
	}
}

func withKey(h map[string]string, key string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if v == "sk-models" || v == "Bearer sk-models" {
			v = strings.Replace(v, "sk-models", key, 1)
		}
		out[k] = v
	}
	return out
}

func hasViolation(ts *mockprovider.TestServer, key, rule string) bool {
	for _, v := range ts.Violations(key) {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

// The SDKs raise their own not-found errors from the mock's answers.
func TestUnknownModelSDKErrors(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	ctx := context.Background()
	oai := openai.NewClient(option.WithBaseURL(ts.OpenAIBaseURL()), option.WithAPIKey("sk-models-sdk"), option.WithMaxRetries(0))
	_, err := oai.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "gpt-test",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
	var oerr *openai.Error
	if !errors.As(err, &oerr) || oerr.StatusCode != 404 || oerr.Code != "model_not_found" {
		t.Errorf("openai chat: %v", err)
	}
	if _, err := oai.Models.Get(ctx, "gpt-test"); !errors.As(err, &oerr) || oerr.StatusCode != 404 || oerr.Code != "model_not_found" {
		t.Errorf("openai models.get: %v", err)
	}
	if m, err := oai.Models.Get(ctx, "gpt-4o-2024-08-06"); err != nil || m.ID != "gpt-4o-2024-08-06" {
		t.Errorf("openai models.get of a snapshot: %v", err)
	}

	ant := anthropic.NewClient(anthropicoption.WithBaseURL(ts.AnthropicBaseURL()), anthropicoption.WithAPIKey("sk-models-sdk"), anthropicoption.WithMaxRetries(0))
	_, err = ant.Messages.New(ctx, anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 64,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	var aerr *anthropic.Error
	if !errors.As(err, &aerr) || aerr.StatusCode != 404 || aerr.Type() != "not_found_error" {
		t.Errorf("anthropic messages: %v", err)
	}
	if _, err := ant.Models.Get(ctx, "claude-test", anthropic.ModelGetParams{}); !errors.As(err, &aerr) || aerr.StatusCode != 404 {
		t.Errorf("anthropic models.get: %v", err)
	}

	gem, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: "sk-models-sdk", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: ts.GeminiBaseURL()}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = gem.Models.GenerateContent(ctx, "gemini-test", genai.Text("hi"), nil)
	var gerr genai.APIError
	if !errors.As(err, &gerr) || gerr.Code != 404 || gerr.Status != "NOT_FOUND" || !strings.HasPrefix(gerr.Message, "models/gemini-test is not found for API version v1beta") {
		t.Errorf("gemini generateContent: %v", err)
	}
	if _, err := gem.Models.Get(ctx, "gemini-test", nil); !errors.As(err, &gerr) || gerr.Code != 404 {
		t.Errorf("gemini models.get: %v", err)
	}
	if m, err := gem.Models.Get(ctx, "gemini-2.5-flash", nil); err != nil || m.Name != "models/gemini-2.5-flash" {
		t.Errorf("gemini models.get of a catalog model: %v %+v", err, m)
	}
}

// WebSocket mode: response.create with an unknown model gets the 404 as
// an error event and the socket stays open.
func TestUnknownModelOverResponsesSocket(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/v1/responses",
		&websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer sk-models-ws"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.CloseNow() }()
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-test","input":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	_, b, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Type   string `json:"type"`
		Status int    `json:"status"`
		Error  struct {
			Code, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.Type != "error" || ev.Status != 404 || ev.Error.Code != "model_not_found" ||
		ev.Error.Message != "The model `gpt-test` does not exist or you do not have access to it." {
		t.Fatalf("event %s (%v)", b, err)
	}
	if !hasViolation(ts, "sk-models-ws", "openai-responses.model-exists") {
		t.Errorf("not journaled: %+v", ts.Violations("sk-models-ws"))
	}
	// The socket still serves a known model.
	if err := conn.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create","model":"gpt-4.1","input":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	for {
		_, b, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		typ := gjson.GetBytes(b, "type").String()
		if typ == "error" {
			t.Fatalf("known model refused: %s", b)
		}
		if typ == "response.completed" {
			break
		}
	}
}

// Azure paths name deployments, not models: any name is served, and the
// body's model (a deployment name on the v1 path) is not checked either.
func TestAzureDeploymentsAreNotModelIDs(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, c := range []modelCall{
		{name: "deployment path", method: http.MethodPost, path: "/openai/deployments/my-prod-gpt/chat/completions?api-version=2024-10-21",
			headers: map[string]string{"Api-Key": "sk-azure"}, body: `{"messages":[{"role":"user","content":"hi"}]}`},
		{name: "deployment path, body model", method: http.MethodPost, path: "/openai/deployments/my-prod-gpt/chat/completions?api-version=2024-10-21",
			headers: map[string]string{"Api-Key": "sk-azure"}, body: chatBodyWith("my-prod-gpt", "")},
		{name: "v1 path", method: http.MethodPost, path: "/openai/v1/chat/completions",
			headers: map[string]string{"Api-Key": "sk-azure"}, body: chatBodyWith("my-prod-gpt", "")},
	} {
		if status, _, body := sendModelCall(t, ts, c, c.body); status != http.StatusOK {
			t.Errorf("%s: %d %s", c.name, status, body)
		}
	}
	if hasViolation(ts, "sk-azure", "openai-chat.model-exists") {
		t.Error("a deployment name journaled as an unknown model")
	}
}

// Options.Models adds models, overrides facts, and a wildcard entry (or
// AnyModel) accepts made-up ids; --lenient journals an unknown model and
// answers.
func TestModelCatalogOptions(t *testing.T) {
	extra, err := models.Parse([]byte(`
openai:
  - {id: gpt-7, reasoning: true}
  - {id: gpt-4.1, reasoning: true}
anthropic:
  - {id: "*"}
`))
	if err != nil {
		t.Fatal(err)
	}
	ts := mockprovider.NewTestServer(t, mockprovider.Options{Models: extra})
	call := oaiCall("x", "/v1/chat/completions", "", "", "")
	if status, _, body := sendModelCall(t, ts, call, chatBodyWith("gpt-7", "")); status != 200 {
		t.Errorf("added model: %d %s", status, body)
	}
	if status, _, body := sendModelCall(t, ts, call, chatBodyWith("gpt-test", "")); status != 404 {
		t.Errorf("an OpenAI id still unknown: %d %s", status, body)
	}
	// gpt-4.1 is a reasoning model by this file: reasoning_effort passes.
	call.path = "/v1/responses"
	if status, _, body := sendModelCall(t, ts, call, `{"model":"gpt-4.1","input":"hi","reasoning":{"effort":"low"}}`); status != 200 {
		t.Errorf("overridden capability: %d %s", status, body)
	}
	ant := antCall("x", "/v1/messages", "", "")
	if status, _, body := sendModelCall(t, ts, ant, `{"model":"claude-test","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`); status != 200 {
		t.Errorf("wildcard: %d %s", status, body)
	}
	// A catalog model keeps its capabilities under the wildcard.
	if status, _, body := sendModelCall(t, ts, ant, `{"model":"claude-opus-4-6","max_tokens":64,"output_config":{"effort":"xhigh"},"messages":[{"role":"user","content":"hi"}]}`); status != 400 {
		t.Errorf("capability under a wildcard: %d %s", status, body)
	}

	anyID := mockprovider.NewTestServer(t, mockprovider.Options{Models: mockprovider.AnyModel()})
	for _, c := range []struct {
		call modelCall
		body string
	}{
		{oaiCall("chat", "/v1/chat/completions", "", "", ""), chatBodyWith("gpt-test", "")},
		{antCall("messages", "/v1/messages", "", ""), `{"model":"claude-test","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`},
		{gemCall("gemini", "v1beta", "gemini-test", "generateContent", ""), `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`},
	} {
		if status, _, body := sendModelCall(t, anyID, c.call, c.body); status != 200 {
			t.Errorf("AnyModel %s: %d %s", c.call.name, status, body)
		}
	}

	lenient := mockprovider.NewTestServer(t, mockprovider.Options{Rules: withLenient()})
	call = oaiCall("x", "/v1/chat/completions", "", "", "")
	call.headers = map[string]string{"Authorization": "Bearer sk-lenient-models"}
	if status, _, body := sendModelCall(t, lenient, call, chatBodyWith("gpt-test", "")); status != 200 {
		t.Errorf("lenient: %d %s", status, body)
	}
	if !hasViolation(lenient, "sk-lenient-models", "openai-chat.model-exists") {
		t.Error("lenient: unknown model not journaled")
	}
}

// The Models APIs list the catalog.
func TestModelListsReadTheCatalog(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, c := range []struct {
		call  modelCall
		path  string
		want  []string
		count int
	}{
		{oaiCall("openai", "/v1/models", "", "", ""), "data.#.id", []string{"gpt-4o", "o3", "gpt-5"}, len(models.Builtin().List(models.OpenAI))},
		{antCall("anthropic", "/v1/models", "", ""), "data.#.id", []string{"claude-sonnet-4-5", "claude-opus-4-7"}, len(models.Builtin().List(models.Anthropic))},
		{gemCall("gemini", "v1beta", "x", "", ""), "models.#.name", []string{"models/gemini-2.5-flash", "models/gemini-3-flash-preview"}, len(models.Builtin().List(models.Gemini))},
	} {
		c.call.method, c.call.path = http.MethodGet, strings.TrimSuffix(c.call.path, "/x:")
		if c.call.name != "gemini" {
			c.call.path = "/v1/models"
		}
		status, _, body := sendModelCall(t, ts, c.call, "")
		ids := gjson.Get(body, c.path).Array()
		if status != 200 || len(ids) != c.count {
			t.Fatalf("%s: %d, %d ids, want %d: %.300s", c.call.name, status, len(ids), c.count, body)
		}
		for _, w := range c.want {
			if !strings.Contains(gjson.Get(body, c.path).Raw, `"`+w+`"`) {
				t.Errorf("%s: %s not listed", c.call.name, w)
			}
		}
	}
}

func withLenient() rules.Options {
	o := rules.DefaultOptions()
	o.Lenient = true
	return o
}
