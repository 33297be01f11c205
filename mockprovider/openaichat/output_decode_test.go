package openaichat_test

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
)

// TestResponseFormatTypeChecked: a response_format type the API does not
// know is its invalid_value 400 at response_format.type
// (epuerta9/deep-research-py#19), not a request answered in free text as
// before the member was read.
func TestResponseFormatTypeChecked(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	a := post(t, ts.URL, sessionKey(t), []byte(`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"object"}}`), nil)
	e := envelope(t, a.Body)
	if a.Status != 400 || e.Message != "Invalid value: 'object'. Supported values are: 'json_object', 'json_schema', and 'text'." ||
		e.Param != "response_format.type" || e.Code != "invalid_value" {
		t.Errorf("status %d: %+v", a.Status, e)
	}
}
