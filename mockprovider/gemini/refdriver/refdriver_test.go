package refdriver

import (
	core "github.com/toolwire/toolwire/suite/refdriver"
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
	"google.golang.org/genai"

	"github.com/toolwire/toolwire/suite/task"
)

// TestEveryRowMakesItsMistake: a row with no hook would run the honest
// loop under a mistake's name.
func TestEveryRowMakesItsMistake(t *testing.T) { core.CheckHooks(t, mistakes) }

func TestResultConversions(t *testing.T) {
	r := task.CallToolResult{Content: []task.Content{{Type: "text", Text: "nope"}, {Type: "image", MimeType: "image/png", Data: "AA=="}}, IsError: true}
	honest := lookup("")
	fr := honest.functionResponse(task.CallToolResult{StructuredContent: map[string]any{"n": 1.0}}, false)
	if fr.Response["n"] != 1.0 {
		t.Errorf("structured response = %v", fr.Response)
	}
	fr = honest.functionResponse(r, true)
	if _, ok := fr.Response["error"]; !ok {
		t.Errorf("error response = %v", fr.Response)
	}
	fr = lookup("omit-is-error").functionResponse(r, true)
	if _, ok := fr.Response["error"]; ok {
		t.Errorf("omit-is-error response = %v", fr.Response)
	}
	fr = lookup("duplicate-ref").functionResponse(task.CallToolResult{Content: r.Content}, true)
	if len(fr.Parts) != 1 || fr.Parts[0].InlineData.DisplayName == "" || fr.Response["attachment_again"] == nil {
		t.Errorf("duplicate-ref response = %v parts %d", fr.Response, len(fr.Parts))
	}
	fr = lookup("gemini-stringify-response").functionResponse(task.CallToolResult{StructuredContent: map[string]any{"n": 1.0}}, false)
	if s, ok := fr.Response["output"].(string); !ok || s != `{"n":1}` {
		t.Errorf("gemini-stringify-response = %v", fr.Response)
	}
}

func TestGeminiMediaMistakes(t *testing.T) {
	r := task.CallToolResult{Content: []task.Content{{Type: "image", MimeType: "image/png", Data: "AA=="}, {Type: "image", MimeType: "image/png", Data: "AQ=="}}}
	fr := lookup("duplicate-display-name").functionResponse(r, true)
	if len(fr.Parts) != 2 || fr.Parts[0].InlineData.DisplayName != fr.Parts[1].InlineData.DisplayName {
		t.Errorf("duplicate-display-name: parts %+v", fr.Parts)
	}
	fr = lookup("dangling-ref").functionResponse(r, true)
	if fr.Parts[0].InlineData.DisplayName != "" || !refersTo(fr.Response, "image_1.png") {
		t.Errorf("dangling-ref: %v parts %+v", fr.Response, fr.Parts[0].InlineData)
	}
	fr = lookup("file-data-parts").functionResponse(r, true)
	if fr.Parts[0].InlineData != nil || fr.Parts[0].FileData == nil {
		t.Errorf("file-data-parts: %+v", fr.Parts[0])
	}
	fr = lookup("unsupported-mime").functionResponse(r, true)
	if fr.Parts[0].InlineData.MIMEType != "application/octet-stream" {
		t.Errorf("unsupported-mime: %+v", fr.Parts[0].InlineData)
	}
}

// TestReplies: the mistakes in what follows a model content with calls,
// against the honest reply (the content as received, then one user
// content of the responses).
func TestReplies(t *testing.T) {
	call := func() *genai.Content {
		return &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "f"}, ThoughtSignature: []byte("sig")}}}
	}
	responses := []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "f", Response: map[string]any{"output": "1"}}},
		{FunctionResponse: &genai.FunctionResponse{Name: "f", Response: map[string]any{"output": "2"}}}}
	roles := func(cs []*genai.Content) (out []string) {
		for _, c := range cs {
			out = append(out, c.Role)
		}
		return out
	}
	reply, sent := lookup("").sendBack(call(), responses)
	if !sent || !reflect.DeepEqual(roles(reply), []string{"model", "user"}) || len(reply[1].Parts) != 2 || reply[0].Parts[0].ThoughtSignature == nil {
		t.Errorf("honest: %v %v", roles(reply), sent)
	}
	if reply, _ = lookup("strip-signature").sendBack(call(), responses); reply[0].Parts[0].ThoughtSignature != nil {
		t.Error("strip-signature kept the signature")
	}
	if reply, _ = lookup("split-gemini-responses").sendBack(call(), responses); !reflect.DeepEqual(roles(reply), []string{"model", "user", "model", "user"}) {
		t.Errorf("split-gemini-responses: %v", roles(reply))
	}
	if reply, sent = lookup("responses-in-call-turn").sendBack(call(), responses); sent || len(reply) != 1 || len(reply[0].Parts) != 3 {
		t.Errorf("responses-in-call-turn: %v %v", roles(reply), sent)
	}
	if reply, sent = lookup("results-as-user-text").sendBack(call(), responses); sent || !reflect.DeepEqual(roles(reply), []string{"user"}) {
		t.Errorf("results-as-user-text: %v %v", roles(reply), sent)
	}
}

func TestGeminiRewrites(t *testing.T) {
	body := []byte(`{"contents":[{"role":"user","parts":[{"text":"x"}]},
		{"role":"model","parts":[{"functionCall":{"name":"f","args":{}}},{"functionCall":{"name":"g","args":{}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}},{"functionResponse":{"name":"g","response":{}}}]}]}`)
	got := lookup("drop-last-call").Body(body)
	if len(gjson.GetBytes(got, "contents.1.parts").Array()) != 1 || len(gjson.GetBytes(got, "contents.2.parts").Array()) != 1 {
		t.Errorf("drop-last-call: %s", got)
	}
	got = lookup("gemini-role-tool").Body(body)
	if gjson.GetBytes(got, "contents.2.role").Str != "tool" || gjson.GetBytes(got, "contents.0.role").Str != "user" {
		t.Errorf("gemini-role-tool: %s", got)
	}
	if got := lookup("drop-first-user-turn").Body(body); gjson.GetBytes(got, "contents.0.role").Str != "model" {
		t.Errorf("drop-first-user-turn: %s", got)
	}
}
