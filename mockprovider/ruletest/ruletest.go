// Package ruletest runs a dialect's RuleCases against a live mock: the Bad
// request must get the real API's status, envelope, message and the
// X-Toolwire-Rule header (or, for a SHOULD rule, succeed and be journaled),
// and the Good request must pass without that violation.
package ruletest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

var seq atomic.Int64

// Run checks every case of a dialect against ts.
func Run(t *testing.T, ts *mockprovider.TestServer, d conv.Dialect, cases []dialect.RuleCase) {
	t.Helper()
	dl, ok := ts.Mock.Dialect(d)
	if !ok {
		t.Fatalf("dialect %s not served", d)
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%s/%d-%s", c.Rule, i, c.Name), func(t *testing.T) {
			if _, ok := ts.Mock.Catalog().Get(c.Rule); !ok {
				t.Fatalf("case names rule %q, which is not in the catalog", c.Rule)
			}
			path := c.Path
			if path == "" {
				_, path, _ = strings.Cut(dl.Routes()[0], " ")
			}

			key := fmt.Sprintf("rulecase-%d-bad", seq.Add(1))
			setup := runSetup(t, ts, d, path, key, c)
			status, hdr, body := Post(t, ts, d, path, key, c.Headers, substitute(t, c.Bad, setup))
			if c.WantStatus != 0 {
				if status != c.WantStatus {
					t.Fatalf("bad request: status %d, want %d\nbody: %s", status, c.WantStatus, body)
				}
				if got := hdr.Get(wire.RuleHeader); got != c.Rule {
					t.Fatalf("bad request: %s = %q, want %q\nbody: %s", wire.RuleHeader, got, c.Rule, body)
				}
				msg, err := dl.ErrorMessage(status, []byte(body))
				if err != nil {
					t.Fatalf("bad request: %v\nbody: %s", err, body)
				}
				if !strings.HasPrefix(msg, c.WantMessage) {
					t.Fatalf("bad request message:\n got: %s\nwant: %s", msg, c.WantMessage)
				}
			} else {
				if status/100 != 2 {
					t.Fatalf("SHOULD rule: bad request must still succeed, got %d %s", status, body)
				}
				if !journaled(ts, key, c.Rule) {
					t.Fatalf("SHOULD rule: %s not journaled for the bad request", c.Rule)
				}
			}

			key = fmt.Sprintf("rulecase-%d-good", seq.Add(1))
			if c.GoodPath != "" {
				path = c.GoodPath
			}
			setup = runSetup(t, ts, d, path, key, c)
			status, _, body = Post(t, ts, d, path, key, c.Headers, substitute(t, c.Good, setup))
			if status/100 != 2 {
				t.Fatalf("good request: status %d\nbody: %s", status, body)
			}
			if journaled(ts, key, c.Rule) {
				t.Fatalf("good request still violates %s: %+v", c.Rule, ts.Violations(key))
			}
		})
	}
}

// Covers fails for every catalog rule of d that has a check but no case.
func Covers(t *testing.T, ts *mockprovider.TestServer, d conv.Dialect, cases []dialect.RuleCase) {
	t.Helper()
	have := map[string]bool{}
	for _, c := range cases {
		have[c.Rule] = true
	}
	for _, r := range ts.Mock.Catalog().ForDialect(d) {
		if r.Check != nil && !have[r.ID] {
			t.Errorf("rule %s has a check but no RuleCase: it is not proven to catch anything", r.ID)
		}
	}
}

func journaled(ts *mockprovider.TestServer, key, rule string) bool {
	for _, v := range ts.Violations(key) {
		if v.Rule == rule {
			return true
		}
	}
	return false
}

func runSetup(t *testing.T, ts *mockprovider.TestServer, d conv.Dialect, path, key string, c dialect.RuleCase) []string {
	var out []string
	for i, body := range c.Setup {
		status, _, resp := Post(t, ts, d, path, key, c.Headers, substitute(t, body, out))
		if status/100 != 2 {
			t.Fatalf("setup %d: status %d\nbody: %s", i, status, resp)
		}
		out = append(out, resp)
	}
	return out
}

var placeholder = regexp.MustCompile(`\{\{setup:(\d+):([^}]+)\}\}`)

func substitute(t *testing.T, body json.RawMessage, setup []string) []byte {
	return placeholder.ReplaceAllFunc(body, func(m []byte) []byte {
		parts := placeholder.FindSubmatch(m)
		n, _ := strconv.Atoi(string(parts[1]))
		if n >= len(setup) {
			t.Fatalf("placeholder %s: only %d setup responses", m, len(setup))
		}
		v := gjson.Get(setup[n], string(parts[2]))
		if !v.Exists() {
			t.Fatalf("placeholder %s: path not found in %s", m, setup[n])
		}
		return []byte(v.String())
	})
}

// Headers returns the headers a dialect's SDK sends for key.
func Headers(c dialect.Client, key string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	c.SetAuth(h, key)
	return h
}

// Post sends body with the dialect's auth for key plus extra headers ("-"
// removes one).
func Post(t *testing.T, ts *mockprovider.TestServer, d conv.Dialect, path, key string, extra map[string]string, body []byte) (int, http.Header, string) {
	t.Helper()
	dl, ok := ts.Mock.Dialect(d)
	if !ok {
		t.Fatalf("dialect %s not served", d)
	}
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = Headers(dl, key)
	for k, v := range extra {
		if v == "-" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
