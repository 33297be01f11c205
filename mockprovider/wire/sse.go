package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"
)

// StreamConfig shapes a streamed answer deterministically, so client
// accumulators can be stressed with tiny fragments and slow chunks.
type StreamConfig struct {
	// FragmentSize is the most bytes of argument or text per delta
	// (never splitting a UTF-8 character). 0 means DefaultFragmentSize.
	FragmentSize int `json:"fragment_size,omitempty" yaml:"fragment_size,omitempty"`
	// ChunkDelay is slept between events.
	ChunkDelay time.Duration `json:"chunk_delay,omitempty" yaml:"chunk_delay,omitempty"`
	// FirstTokenDelay is slept before the first event.
	FirstTokenDelay time.Duration `json:"first_token_delay,omitempty" yaml:"first_token_delay,omitempty"`
}

// DefaultFragmentSize is a typical delta size of the real APIs.
const DefaultFragmentSize = 12

// Fragments splits s into pieces of at most size bytes on character
// boundaries; a character wider than size is its own piece.
func Fragments(s string, size int) []string {
	var out []string
	for len(s) > 0 {
		var frag string
		frag, s = NextFragment(s, size)
		out = append(out, frag)
	}
	return out
}

// NextFragment cuts the first piece off s as Fragments does, for a stream
// that writes one piece at a time without building the list.
func NextFragment(s string, size int) (frag, rest string) {
	if size <= 0 {
		size = DefaultFragmentSize
	}
	n := 0
	for n < len(s) {
		_, w := utf8.DecodeRuneInString(s[n:])
		if n > 0 && n+w > size {
			break
		}
		n += w
	}
	return s[:n], s[n:]
}

// SSE writes server-sent events with the configured pacing.
type SSE struct {
	w       http.ResponseWriter
	flusher http.Flusher
	cfg     StreamConfig
	sep     string
	sent    int
	buf     []byte // the event being written, reused
	// Hook runs before each event with the count already sent; a non-nil
	// error stops the stream (faults use it to disconnect or corrupt).
	Hook func(sent int) error
	// Transcript, when set, receives every event as written (journal,
	// recording) and may keep its data: Event hands it a copy or bytes it
	// marshalled, EventBytes the caller's.
	Transcript func(event string, data []byte)
}

// NewSSE starts an event stream: it writes the headers at once. sep is the
// event separator ("\n\n"; Gemini sends "\r\n\r\n").
func NewSSE(w http.ResponseWriter, cfg StreamConfig, sep string) *SSE {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	if sep == "" {
		sep = "\n\n"
	}
	return &SSE{w: w, flusher: f, cfg: cfg, sep: sep}
}

// Config returns the stream's pacing and fragment settings.
func (s *SSE) Config() StreamConfig { return s.cfg }

// Event writes one event; name "" writes a data-only event. Data given as
// bytes is copied: the caller may reuse them once Event returns.
func (s *SSE) Event(name string, data any) error {
	if b, ok := data.([]byte); ok {
		return s.write(name, bytes.Clone(b))
	}
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	return s.write(name, b)
}

// EventBytes writes one event whose data is JSON already, and hands b
// over: the transcript keeps it, so the caller must not change it
// afterwards (callers pass what they have just marshalled).
func (s *SSE) EventBytes(name string, b []byte) error { return s.write(name, b) }

func (s *SSE) write(name string, b []byte) error {
	if s.Hook != nil {
		if err := s.Hook(s.sent); err != nil {
			return err
		}
	}
	if s.sent == 0 && s.cfg.FirstTokenDelay > 0 {
		time.Sleep(s.cfg.FirstTokenDelay)
	} else if s.sent > 0 && s.cfg.ChunkDelay > 0 {
		time.Sleep(s.cfg.ChunkDelay)
	}
	if err := s.frame(name, b); err != nil {
		return err
	}
	s.sent++
	return nil
}

// frame writes one event as it is and hands it to the transcript.
func (s *SSE) frame(name string, b []byte) error {
	// One buffer for the stream's events: io.Writer must not retain it.
	buf := s.buf[:0]
	if name != "" {
		buf = append(buf, "event: "...)
		buf = append(buf, name...)
		buf = append(buf, '\n')
	}
	buf = append(buf, "data: "...)
	buf = append(buf, b...)
	buf = append(buf, s.sep...)
	s.buf = buf
	if _, err := s.w.Write(buf); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	if s.Transcript != nil {
		s.Transcript(name, b)
	}
	return nil
}

// Sent is how many events were written.
func (s *SSE) Sent() int { return s.sent }

// BrokenEvent writes an event whose data need not be JSON (a
// malformed-chunk fault), bypassing the hook and pacing, and leaving Sent
// as it was. The transcript gets the data alone, as for any event, so the
// journal keeps what the client was sent in the same form.
func (s *SSE) BrokenEvent(name string, data []byte) error { return s.frame(name, data) }

// Writer is the underlying response writer (a disconnect fault hijacks it).
func (s *SSE) Writer() http.ResponseWriter { return s.w }

// Separator is the event separator in use.
func (s *SSE) Separator() string { return s.sep }
