package openairesp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// post sends a JSON body with a bearer key and returns status, headers and
// body.
func post(t *testing.T, url, key string, body []byte, headers map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range headers {
		if v == "-" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b
}

var placeholder = regexp.MustCompile(`\{\{setup:(\d+):([^}]+)\}\}`)

// substitute fills {{setup:N:PATH}} with the value at PATH of setup
// response N.
func substitute(t *testing.T, b []byte, setups [][]byte) []byte {
	t.Helper()
	return placeholder.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := placeholder.FindSubmatch(m)
		n, _ := strconv.Atoi(string(sub[1]))
		if n >= len(setups) {
			t.Fatalf("placeholder %s names setup %d of %d", m, n, len(setups))
		}
		v := gjson.GetBytes(setups[n], string(sub[2]))
		if !v.Exists() {
			t.Fatalf("placeholder %s: no %s in setup response %s", m, sub[2], setups[n])
		}
		return []byte(v.String())
	})
}

// runRuleCase posts a case's setup, Bad and Good requests in one fresh
// session and checks the Bad answer is the rule's exact error and the Good
// one succeeds without breaking the rule.
func runRuleCase(t *testing.T, ts *mockprovider.TestServer, rc dialect.RuleCase, key string) {
	t.Helper()
	if rc.WantStatus == 0 {
		t.Skip("a SHOULD case (journaled, not answered): TestCapabilityCases runs it through ruletest")
	}
	path := rc.Path
	if path == "" {
		path = openairesp.Path
	}
	url := ts.URL + path
	var setups [][]byte
	for i, s := range rc.Setup {
		status, _, body := post(t, url, key, s, rc.Headers)
		if status != http.StatusOK {
			t.Fatalf("setup %d: status %d: %s", i, status, body)
		}
		setups = append(setups, body)
	}
	status, h, body := post(t, url, key, substitute(t, rc.Bad, setups), rc.Headers)
	if status != rc.WantStatus {
		t.Fatalf("bad: status %d, want %d: %s", status, rc.WantStatus, body)
	}
	if got := h.Get(wire.RuleHeader); got != rc.Rule {
		t.Errorf("bad: %s = %q, want %q", wire.RuleHeader, got, rc.Rule)
	}
	checkEnvelope(t, body)
	if msg := gjson.GetBytes(body, "error.message").String(); !strings.HasPrefix(msg, rc.WantMessage) {
		t.Errorf("bad: message %q, want prefix %q", msg, rc.WantMessage)
	}
	if gjson.GetBytes(body, "error.type").String() != "invalid_request_error" {
		t.Errorf("bad: error.type %s", gjson.GetBytes(body, "error.type"))
	}

	status, h, body = post(t, url, key, substitute(t, rc.Good, setups), rc.Headers)
	if status != http.StatusOK {
		t.Fatalf("good: status %d (%s): %s", status, h.Get(wire.RuleHeader), body)
	}
	journal := ts.Journal(key)
	last := journal[len(journal)-1]
	for _, v := range last.Violations {
		if v.Rule == rc.Rule {
			t.Errorf("good: still breaks %s: %s", rc.Rule, v)
		}
	}
}

// checkEnvelope asserts OpenAI's error envelope: message and type
// strings, param and code present (null or string).
func checkEnvelope(t *testing.T, body []byte) {
	t.Helper()
	var env map[string]map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil || env["error"] == nil {
		t.Fatalf("not an OpenAI error envelope: %s", body)
	}
	e := env["error"]
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := e[k]; !ok {
			t.Errorf("envelope lacks error.%s: %s", k, body)
		}
	}
	if gjson.GetBytes(body, "error.message").Type != gjson.String || gjson.GetBytes(body, "error.type").Type != gjson.String {
		t.Errorf("envelope message/type not strings: %s", body)
	}
}

func TestRuleCases(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for i, rc := range openairesp.RuleCases() {
		t.Run(fmt.Sprintf("%s/%s", rc.Rule, rc.Name), func(t *testing.T) {
			runRuleCase(t, ts, rc, fmt.Sprintf("sk-case-%d", i))
		})
	}
}
