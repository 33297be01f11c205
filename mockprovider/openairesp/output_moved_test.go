package openairesp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

const chatShapedBody = `{"model":"gpt-4.1","input":"Describe Tokyo as JSON.","response_format":{"type":"json_object"}}`

// TestResponseFormatMoved: Chat's response_format on the Responses API is
// the API's unsupported_parameter 400 pointing to text.format (not the
// generic unknown-parameter answer), and with --lenient it is journaled
// under that rule alone.
func TestResponseFormatMoved(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	status, _, body := post(t, ts.URL+openairesp.Path, "sk-moved", []byte(chatShapedBody), nil)
	var e struct {
		Error struct {
			Message, Param, Code string
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusBadRequest || e.Error.Param != "response_format" || e.Error.Code != "unsupported_parameter" ||
		e.Error.Message != "Unsupported parameter: 'response_format'. In the Responses API, this parameter has moved to 'text.format'. Try again with the new parameter. See the API documentation for more information: https://platform.openai.com/docs/api-reference/responses/create." {
		t.Errorf("status %d: %s", status, body)
	}

	opts := rules.DefaultOptions()
	opts.Lenient = true
	lenient := mockprovider.NewTestServer(t, mockprovider.Options{Rules: opts})
	if status, _, body := post(t, lenient.URL+openairesp.Path, "sk-moved-lenient", []byte(chatShapedBody), nil); status != http.StatusOK {
		t.Fatalf("lenient: status %d: %s", status, body)
	}
	var got []string
	for _, v := range lenient.Violations("sk-moved-lenient") {
		got = append(got, v.Rule)
	}
	if len(got) != 1 || got[0] != openairesp.RuleResponseFormatMoved {
		t.Errorf("lenient journal: %v", got)
	}
}
