package main

import (
	"bytes"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// TestMirrorAnswersRecordedBytes: once the mock's answers are recorded,
// the baseline answers each dialect's call and result turn with exactly
// the mock's status, header names and body, and anything else with its
// fixed reply.
func TestMirrorAnswersRecordedBytes(t *testing.T) {
	cfg := config{inProcess: true}
	mock, err := startServer(cfg, "mock", session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer mock.stop()
	base, err := startServer(cfg, "baseline", session.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer base.stop()
	defer answers.Store(nil)
	client := &http.Client{}
	if err := recordMirror(client, mock.url, base.url, conv.Dialects); err != nil {
		t.Fatal(err)
	}
	recorded := *answers.Load()
	if len(recorded) != 2*len(conv.Dialects) {
		t.Fatalf("%d answers recorded, want a call and a result turn per dialect (%d)", len(recorded), 2*len(conv.Dialects))
	}
	send := func(req *http.Request) (int, http.Header, []byte) {
		t.Helper()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header, b
	}
	for _, d := range conv.Dialects {
		for i := range 2 {
			_, mockHeader, mockBody := send(turnRequest(mock.url, d, false, "mirror-test", i))
			req := turnRequest(base.url, d, false, "mirror-test", i)
			want := recorded[cannedKey{req.URL.Path, int(req.ContentLength)}]
			status, header, body := send(req)
			if want == nil {
				t.Fatalf("%s turn %d: nothing recorded for %s", d, i, req.URL.Path)
			}
			if status != http.StatusOK || !bytes.Equal(body, want.Body) {
				t.Errorf("%s turn %d: mirror answered %d %s, recorded %s", d, i, status, body, want.Body)
			}
			if got, mk := slices.Sorted(maps.Keys(header)), slices.Sorted(maps.Keys(mockHeader)); !slices.Equal(got, mk) {
				t.Errorf("%s turn %d: mirror headers %v, the mock's %v", d, i, got, mk)
			}
			// The same kind of answer as the mock gives a fresh session
			// (a call, then text): the bodies differ only in their ids.
			if len(body) < len(mockBody)/2 || len(body) > 2*len(mockBody) {
				t.Errorf("%s turn %d: recorded body of %d bytes, the mock's now %d", d, i, len(body), len(mockBody))
			}
		}
	}
	plain, err := http.NewRequest(http.MethodPost, base.url+"/v1/chat/completions", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, other := send(plain); !bytes.Equal(other, fixedBody) {
		t.Errorf("an unrecorded request got %s, want the fixed reply", other)
	}
}
