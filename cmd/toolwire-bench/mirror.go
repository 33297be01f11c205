package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// The mirror is the bare baseline handler answering the dialects' own
// traffic: each turn request (the same body, path and headers the dialect
// run sends) gets the answer the mock gave it, recorded once before the
// load — same status, headers and body bytes. Against the mirror, a
// dialect's ratio is what the mock's own work costs (decode, rules, model,
// journal, encode), apart from what any server pays to move an API-shaped
// exchange through net/http and the load generator: the twelve
// anthropic-ratelimit-* headers the real API sends, say, cost the mirror
// as much as the mock. The headline ratio stays the one against the plain
// baseline, which answers a `{}` body with a small fixed reply.

const cannedPath = "/_bench/canned"

// cannedAnswer is one recorded answer, keyed by the request it answers.
type cannedAnswer struct {
	Path    string      `json:"path"`
	BodyLen int         `json:"body_len"`
	Status  int         `json:"status"`
	Header  http.Header `json:"header"`
	Body    []byte      `json:"body"`
}

// cannedKey tells the turn requests apart: every dialect has its own path,
// and a dialect's call and result bodies differ in length. A struct, so
// that looking up the baseline's own requests allocates nothing.
type cannedKey struct {
	path    string
	bodyLen int
}

// answers is the baseline process's recorded answers, set once by
// cannedPath before any load and read-only afterwards.
var answers atomic.Pointer[map[cannedKey]*cannedAnswer]

// serveBaseline answers a recorded request with its recorded answer and
// anything else with fixedBody.
func serveBaseline(w http.ResponseWriter, r *http.Request) {
	n, _ := io.Copy(io.Discard, r.Body)
	if m := answers.Load(); m != nil {
		if a := (*m)[cannedKey{r.URL.Path, int(n)}]; a != nil {
			h := w.Header()
			for k, v := range a.Header {
				h[k] = v
			}
			w.WriteHeader(a.Status)
			_, _ = w.Write(a.Body)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(fixedBody)
}

// setCanned is the baseline process's cannedPath handler.
func setCanned(w http.ResponseWriter, r *http.Request) {
	var list []cannedAnswer
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	m := make(map[cannedKey]*cannedAnswer, len(list))
	for i := range list {
		m[cannedKey{list[i].Path, list[i].BodyLen}] = &list[i]
	}
	answers.Store(&m)
	w.WriteHeader(http.StatusNoContent)
}

// recordMirror sends each dialect's call and result turn to the mock once
// and hands the answers to the baseline process.
func recordMirror(client *http.Client, mockURL, baseURL string, dialects []conv.Dialect) error {
	var list []cannedAnswer
	for _, d := range dialects {
		for i := range 2 {
			req := turnRequest(mockURL, d, false, "bench-mirror-"+string(d), i)
			resp, err := client.Do(req)
			if err != nil {
				return fmt.Errorf("recording %s: %w", d, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				return fmt.Errorf("recording %s: status %d %v: %s", d, resp.StatusCode, err, body)
			}
			h := resp.Header.Clone()
			// net/http writes these itself, as it does for the mock.
			h.Del("Date")
			h.Del("Content-Length")
			list = append(list, cannedAnswer{Path: req.URL.Path, BodyLen: int(req.ContentLength), Status: resp.StatusCode, Header: h, Body: body})
		}
	}
	b, _ := json.Marshal(list)
	resp, err := client.Post(baseURL+cannedPath, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return fmt.Errorf("the baseline refused the recorded answers: status %d", resp.StatusCode)
	}
	return nil
}
