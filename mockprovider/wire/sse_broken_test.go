package wire

import (
	"net/http/httptest"
	"testing"
)

// A broken event goes out framed as any event, its data handed to the
// transcript alone (not the framing), and does not count as sent.
func TestBrokenEventIsFramedAndTranscribedAsAnEvent(t *testing.T) {
	rec := httptest.NewRecorder()
	s := NewSSE(rec, StreamConfig{}, "\r\n\r\n")
	var got [][2]string
	s.Transcript = func(event string, data []byte) { got = append(got, [2]string{event, string(data)}) }
	if err := s.EventBytes("", []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.BrokenEvent("", []byte(`{"toolwire": malformed`)); err != nil {
		t.Fatal(err)
	}
	if want := "data: {\"a\":1}\r\n\r\ndata: {\"toolwire\": malformed\r\n\r\n"; rec.Body.String() != want {
		t.Errorf("wire %q, want %q", rec.Body.String(), want)
	}
	if len(got) != 2 || got[1] != [2]string{"", `{"toolwire": malformed`} {
		t.Errorf("transcript %q", got)
	}
	if s.Sent() != 1 {
		t.Errorf("sent %d, want 1: a broken event is not counted", s.Sent())
	}
}
