package gemini

import (
	"encoding/json"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// stream sends the chunks of an answer: data-only SSE events with
// ?alt=sse (go-genai's scanner accepts nothing else), one JSON array of
// the chunks without it, as the API does. calls are the answer's calls,
// encoded: the chunk that has calls has them all.
func (d *Dialect) stream(x *dialect.Exchange, r *Request, head responseHead, chunks []chunk, calls []encodedCall, texts string, callsLen int) {
	chunkCalls := func(ch chunk) []encodedCall {
		if len(ch.calls) == 0 {
			return nil
		}
		return calls
	}
	if !r.SSE {
		b := append(make([]byte, 0, len(chunks)*responseSize+len(texts)+callsLen), '[')
		for i, ch := range chunks {
			if i > 0 {
				b = append(b, ',')
			}
			b = head.appendResponse(b, ch, chunkCalls(ch))
		}
		x.JSON(http.StatusOK, json.RawMessage(append(b, ']')))
		return
	}
	s := x.SSE("\r\n\r\n")
	buf := make([]byte, 0, responseSize+callsLen) // for every chunk: EventBytes copies it
	for _, ch := range chunks {
		buf = head.appendResponse(buf[:0], ch, chunkCalls(ch))
		if err := s.EventBytes("", buf); err != nil {
			return
		}
	}
}

// streamViaLibrary is stream through encoding/json's reflection.
func (d *Dialect) streamViaLibrary(x *dialect.Exchange, r *Request, head responseHead, chunks []chunk) {
	msgs := make([]GenerateContentResponse, len(chunks))
	for i, ch := range chunks {
		msgs[i] = head.message(ch)
	}
	if !r.SSE {
		x.JSON(http.StatusOK, msgs)
		return
	}
	s := x.SSE("\r\n\r\n")
	for _, m := range msgs {
		if err := s.Event("", m); err != nil {
			return
		}
	}
}
