package openairesp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// groupedTurnsBody is a reasoning model's loop with every kind of item.
const groupedTurnsBody = `{"model":"gpt-5","instructions":"Be brief.","input":[
	{"role":"developer","content":"Use tools."},
	{"role":"user","content":[{"type":"input_text","text":"Weather and time?"},{"type":"input_image","image_url":"data:image/png;base64,AAAA"}]},
	{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"two calls"}]},
	{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"location\":\"Paris\"}"},
	{"type":"function_call","id":"fc_2","call_id":"call_2","name":"get_time","arguments":"{}"},
	{"type":"function_call_output","call_id":"call_1","output":"sunny"},
	{"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"noon"},{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"}]},
	{"role":"assistant","content":[{"type":"output_text","text":"Sunny at noon."}]},
	{"role":"user","content":"Thanks"}]}`

// TestDecodeGroupsTurns: adjacent assistant-side items make one assistant
// turn and adjacent outputs one user turn, so the scenario cursor counts
// model turns, not items.
func TestDecodeGroupsTurns(t *testing.T) {
	body := groupedTurnsBody
	req, c, aerr := openairesp.New().Decode(&dialect.Exchange{}, []byte(body))
	if aerr != nil {
		t.Fatal(aerr)
	}
	if vs := rules.Run(openairesp.New().Rules(), req, &rules.Env{}); len(vs) != 0 {
		t.Errorf("violations %v", vs)
	}
	var roles []string
	for _, turn := range c.Turns {
		roles = append(roles, string(turn.Role))
	}
	if strings.Join(roles, ",") != "user,assistant,user,assistant,user" || c.AssistantTurns() != 2 {
		t.Fatalf("turns %v", roles)
	}
	if c.System != "Be brief.\nUse tools." || c.Dialect != conv.OpenAIResponses {
		t.Errorf("system %q", c.System)
	}
	if p := c.Turns[0].Parts[1]; p.Kind != conv.KindMedia || p.Media.MIMEType != "image/png" || p.Media.Data != "AAAA" {
		t.Errorf("image part %+v", p)
	}
	a := c.Turns[1]
	if a.Parts[0].Reasoning == nil || a.Parts[0].Reasoning.ID != "rs_1" || a.Parts[0].Reasoning.Summary != "two calls" {
		t.Errorf("reasoning %+v", a.Parts[0])
	}
	if cs := a.Calls(); len(cs) != 2 || cs[0].ItemID != "fc_1" || cs[0].Arguments["location"] != "Paris" {
		t.Errorf("calls %+v", cs)
	}
	res := c.Turns[2].Results()
	if len(res) != 2 || res[0].Name != "get_weather" || res[0].Text() != "sunny" || res[1].Content[1].Type != conv.ContentDocument || res[1].Content[1].MIMEType != "application/pdf" {
		t.Errorf("results %+v", res)
	}
}

// offlineBody continues a response no session can resolve.
const offlineBody = `{"model":"gpt-4.1","previous_response_id":"resp_x","input":[{"type":"function_call_output","call_id":"call_1","output":"ok"}]}`

// TestDecodeOffline: without a session, previous_response_id cannot be
// resolved and its rule, like the reasoning pairing, is skipped.
func TestDecodeOffline(t *testing.T) {
	d := openairesp.New()
	req, c, aerr := d.Decode(&dialect.Exchange{}, []byte(offlineBody))
	if aerr != nil {
		t.Fatal(aerr)
	}
	if c.PreviousResponseID != "resp_x" {
		t.Errorf("previous id %q", c.PreviousResponseID)
	}
	for _, v := range rules.Run(d.Rules(), req, &rules.Env{}) {
		if v.Rule == openairesp.RulePreviousResponse || v.Rule == openairesp.RuleReasoningBefore {
			t.Errorf("offline violation %s", v)
		}
	}
}

// typeErrorBodies are bodies of the wrong types, with the start of the
// API's answer.
var typeErrorBodies = map[string]string{
	`{"model":"gpt-4.1","input":5}`:                                             "Invalid type for 'input': expected one of a string or array of input items, but got an integer instead.",
	`{"model":"gpt-4.1","input":["hi"]}`:                                        "Invalid type for 'input[0]': expected an object, but got a string instead.",
	`{"model":"gpt-4.1","input":[{"type":"function_call","name":7}]}`:           "Invalid type for 'input[0].name': expected a string, but got an integer instead.",
	`{"model":"gpt-4.1","input":"hi","tools":[{"type":"function","name":1.5}]}`: "Invalid type for 'tools[0].name': expected a string, but got a decimal instead.",
	`{"model":"gpt-4.1","input":"hi","stream":"yes"}`:                           "Invalid type for 'stream': expected a boolean, but got a string instead.",
	`{"model":`: "We could not parse the JSON body of your request.",
}

func TestDecodeTypeErrors(t *testing.T) {
	for body, want := range typeErrorBodies {
		_, _, aerr := openairesp.New().Decode(&dialect.Exchange{}, []byte(body))
		if aerr == nil || aerr.Status != http.StatusBadRequest || !strings.HasPrefix(aerr.Message, want) {
			t.Errorf("%s: got %v, want %q", body, aerr, want)
		}
	}
}

func TestStoredEndpointsNeedAKey(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	res, err := http.Get(ts.URL + openairesp.Path + "/resp_x")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d", res.StatusCode)
	}
}
