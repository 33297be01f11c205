package openairesp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzReadClientEvent: any client text message either gets a refusal or
// becomes the POST body of a streamed request. A JSON object with type
// response.create becomes an object (its WebSocket-only members gone,
// "stream":true added) that is valid JSON; nothing panics.
func FuzzReadClientEvent(f *testing.F) {
	for _, s := range []string{
		`{"type":"response.create","model":"gpt-4.1","input":"Hi"}`,
		`{"type":"response.create","stream_id":"s1","generate":true,"stream":false,"model":"gpt-4.1","input":[]}`,
		`{"type":"response.create","background":true}`,
		`{"type":"response.steer"}`,
		`{"type":1}`, `{}`, `[]`, `"x"`, `{"type":"response.create","type":"x"}`, `{`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		ev, aerr := readClientEvent(msg)
		if aerr != nil {
			if aerr.Status < 400 || aerr.Message == "" {
				t.Fatalf("refusal without status or message: %+v", aerr)
			}
			return
		}
		if jsontext.Value(msg).Kind() != '{' {
			return // passed on as it is, for POST's own answer
		}
		if !jsontext.Value(ev.body).IsValid(jsontext.AllowDuplicateNames(true)) {
			t.Fatalf("body is not JSON: %q from %q", ev.body, msg)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(ev.body, &m); err != nil {
			// encoding/json refuses what jsontext allows (duplicates
			// are fine; invalid UTF-8 inside strings is not reachable
			// since the message was valid).
			return
		}
		for _, k := range []string{"type", "stream_id", "generate"} {
			if _, ok := m[k]; ok {
				t.Fatalf("%s kept in %s", k, ev.body)
			}
		}
		if string(m["stream"]) != "true" {
			t.Fatalf("stream not true in %s", ev.body)
		}
	})
}

// FuzzWithStreamID: an event that is a JSON object gets exactly one
// stream_id, the socket's, and stays valid JSON; anything else is left
// as it is.
func FuzzWithStreamID(f *testing.F) {
	for _, s := range []string{`{}`, `{ }`, `{"type":"response.created"}`, `{"stream_id":"old","a":1}`, `[1]`, `data`, "{\"a\":\"\xff\"}"} {
		f.Add([]byte(s), "sid1")
	}
	f.Fuzz(func(t *testing.T, event []byte, id string) {
		out := withStreamID(event, id)
		if jsontext.Value(event).Kind() != '{' || !jsontext.Value(event).IsValid(jsontext.AllowDuplicateNames(true)) {
			if string(out) != string(event) {
				t.Fatalf("a non-object changed: %q -> %q", event, out)
			}
			return
		}
		if !jsontext.Value(out).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			t.Fatalf("not JSON: %q from %q", out, event)
		}
		dec := jsontext.NewDecoder(bytes.NewReader(out), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		_, _ = dec.ReadToken()
		ids := 0
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				t.Fatal(err)
			}
			key := name.String()
			val, _ := dec.ReadValue()
			if key == "stream_id" {
				ids++
				var got string
				if json.Unmarshal(val, &got) != nil && jsontext.Value(val).Kind() != '"' {
					t.Fatalf("stream_id %s", val)
				}
			}
		}
		if ids != 1 {
			t.Fatalf("%d stream_id members in %q", ids, out)
		}
	})
}
