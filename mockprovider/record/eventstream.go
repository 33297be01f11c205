package record

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// EventStreamType is the content type of Bedrock's streamed answers
// (ConverseStream, InvokeModelWithResponseStream): binary AWS event-stream
// frames, not SSE.
const EventStreamType = "application/vnd.amazon.eventstream"

func isEventStream(contentType string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), EventStreamType)
}

// eventTypeHeader names a frame's event (messageStart,
// contentBlockDelta…); the Event's name holds it, Headers the rest.
const eventTypeHeader = ":event-type"

// parseFrames reads an AWS event stream frame by frame into events: the
// :event-type as the event's name, the payload as its data (base64 when
// it is not text), every other header kept. cut says why the stream's end
// could not be read (a frame cut short, a bad checksum).
func parseFrames(data []byte) (events []Event, cut string) {
	r := bytes.NewReader(data)
	dec := eventstream.NewDecoder()
	for r.Len() > 0 {
		msg, err := dec.Decode(r, nil)
		if err != nil {
			return events, fmt.Sprintf("event-stream frame %d unreadable: %v", len(events)+1, err)
		}
		events = append(events, frameEvent(msg))
	}
	return events, ""
}

func frameEvent(msg eventstream.Message) Event {
	var e Event
	for _, h := range msg.Headers {
		if h.Name == eventTypeHeader {
			e.Event = h.Value.String()
			continue
		}
		if e.Headers == nil {
			e.Headers = map[string]string{}
		}
		// Bedrock's headers are all strings; another type keeps its
		// text and is replayed as a string.
		e.Headers[h.Name] = h.Value.String()
	}
	if utf8.Valid(msg.Payload) {
		e.Data = string(msg.Payload)
	} else {
		e.Data, e.Base64 = base64.StdEncoding.EncodeToString(msg.Payload), true
	}
	return e
}

// frame is the event-stream message an event was read from.
func (e Event) frame() (eventstream.Message, error) {
	var msg eventstream.Message
	if e.Event != "" {
		msg.Headers.Set(eventTypeHeader, eventstream.StringValue(e.Event))
	}
	names := make([]string, 0, len(e.Headers))
	for k := range e.Headers {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := headerRank(names[i]), headerRank(names[j]); a != b {
			return a < b
		}
		return names[i] < names[j]
	})
	for _, k := range names {
		msg.Headers.Set(k, eventstream.StringValue(e.Headers[k]))
	}
	msg.Payload = []byte(e.Data)
	if e.Base64 {
		p, err := base64.StdEncoding.DecodeString(e.Data)
		if err != nil {
			return msg, fmt.Errorf("event %q: data is not base64: %w", e.Event, err)
		}
		msg.Payload = p
	}
	return msg, nil
}

// headerRank orders a replayed frame's headers as AWS sends them (the
// header naming the frame first, then :content-type, :message-type), so a
// replayed stream is the recorded one byte for byte; a reader does not
// depend on the order.
func headerRank(name string) int {
	switch name {
	case ":exception-type", ":error-code", ":error-message":
		return 0
	case ":content-type":
		return 1
	case ":message-type":
		return 2
	}
	return 3
}

// writeFrames replays events as event-stream frames, one flush each, so a
// client's event-stream reader sees them as it saw the upstream's.
func writeFrames(w io.Writer, events []Event) error {
	f, _ := w.(http.Flusher)
	enc := eventstream.NewEncoder()
	var buf bytes.Buffer
	for _, e := range events {
		msg, err := e.frame()
		if err != nil {
			return err
		}
		buf.Reset()
		if err := enc.Encode(&buf, msg); err != nil {
			return fmt.Errorf("event %q: %w", e.Event, err)
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		if f != nil {
			f.Flush()
		}
	}
	return nil
}
