package bedrock_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// TestFormatRequestAccepted: the request format mode builds around a
// driver's answer is one the mock accepts without a violation, and the
// judge finds the result it carries.
func TestFormatRequestAccepted(t *testing.T) {
	ts := newServer(t)
	d := bedrock.New()
	f := d.Format()
	c := &dialect.FormatCase{Tag: "a", Calls: []dialect.FormatCall{{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}}
	tool := f.Tool("get_weather", "Get the weather.", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}})
	answer, _ := json.Marshal(map[string]any{"role": "user", "content": []any{map[string]any{"toolResult": map[string]any{
		"toolUseId": f.CallID("a", 0), "content": []any{map[string]any{"json": map[string]any{"temperature": 18}}}}}}})
	if why := f.NativeShape(map[string]any{"role": "user", "content": []any{map[string]any{"toolResult": map[string]any{}}}}); why != "" {
		t.Fatalf("native shape refused: %s", why)
	}
	body, err := f.Request(f.Model(c), c, []any{tool}, []json.RawMessage{answer})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+d.Endpoint(f.Model(c), false), bytes.NewReader(body))
	d.SetAuth(req.Header, "AKIDFORMAT")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s\n%s", resp.StatusCode, b, body)
	}
	if vs := ts.Violations("AKIDFORMAT"); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
	if got := d.Judge().ResultPath(body, f.CallID("a", 0), "get_weather"); got != "messages.2.content.0" {
		t.Fatalf("result path = %q", got)
	}
	if got := d.Judge().ResultPath(body, "tooluse_other", "get_weather"); got != "" {
		t.Fatalf("result path of an unknown id = %q", got)
	}
}
