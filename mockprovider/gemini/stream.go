package gemini

import (
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// stream sends the chunks of an answer: data-only SSE events with
// ?alt=sse (go-genai's scanner accepts nothing else), one JSON array of
// the chunks without it, as the API does.
func (d *Dialect) stream(x *dialect.Exchange, r *Request, head responseHead, chunks []chunk) {
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
