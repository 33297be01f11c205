package gemini

import (
	"encoding/json"
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The answers are written by hand: encoding/json's reflection over
// GenerateContentResponse was most of an answer's encoding, and a
// streamed answer encodes one per chunk. The bytes are encoding/json's,
// member for member (render_test.go holds both to the same bytes): HTML
// characters, U+2028/2029 and invalid UTF-8 are escaped as it escapes
// them, by handing such a string to it, and a call's arguments are its
// encoding of the map.

// responseSize is room for a response's members around its text and calls.
const responseSize = 384

// encodedCall is a call part's functionCall as encoding/json writes it:
// what the usage counts and what the answer carries.
type encodedCall struct {
	part *OutPart
	json []byte
}

// encodeCalls encodes each call once; false when one cannot be encoded
// (arguments holding a NaN, say): the library then writes the answer, as
// it always did, failing as it always failed.
func encodeCalls(calls []OutPart) ([]encodedCall, int, bool) {
	out := make([]encodedCall, len(calls))
	n := 0
	for i := range calls {
		b, err := marshalCall(calls[i].FunctionCall)
		if err != nil {
			return nil, 0, false
		}
		out[i] = encodedCall{part: &calls[i], json: b}
		n += len(b)
	}
	return out, n, true
}

// appendResponse writes the chunk as a GenerateContentResponse.
func (h responseHead) appendResponse(b []byte, ch chunk, calls []encodedCall) []byte {
	b = append(b, `{"candidates":[{"content":{"parts":`...)
	if !ch.hasText && len(calls) == 0 {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		if ch.hasText {
			b = append(b, `{"text":`...)
			b = wirejson.AppendLegacyString(b, ch.text)
			b = append(b, '}')
		}
		for i, c := range calls {
			if i > 0 || ch.hasText {
				b = append(b, ',')
			}
			b = append(b, `{"functionCall":`...)
			b = append(b, c.json...)
			if c.part.ThoughtSignature != "" {
				b = append(b, `,"thoughtSignature":`...)
				b = wirejson.AppendLegacyString(b, c.part.ThoughtSignature)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"role":"model"}`...)
	if ch.last && h.finish != "" {
		b = append(b, `,"finishReason":`...)
		b = wirejson.AppendLegacyString(b, h.finish)
	}
	b = append(b, `,"index":0`...)
	if ch.last && h.calls && h.finish == finishStop {
		b = append(b, `,"finishMessage":`...)
		b = wirejson.AppendLegacyString(b, finishMessageCalls)
	}
	out := tokens(ch.outBytes)
	b = append(b, `}],"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt), 10)
	b = append(b, `,"candidatesTokenCount":`...)
	b = strconv.AppendInt(b, int64(out), 10)
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt+out+h.thoughts), 10)
	b = append(b, `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt), 10)
	b = append(b, `}]`...)
	if h.thoughts != 0 {
		b = append(b, `,"thoughtsTokenCount":`...)
		b = strconv.AppendInt(b, int64(h.thoughts), 10)
	}
	b = append(b, `},"modelVersion":`...)
	b = wirejson.AppendLegacyString(b, h.model)
	b = append(b, `,"responseId":`...)
	b = wirejson.AppendLegacyString(b, h.id)
	return append(b, '}')
}

// marshalCall is json.Marshal(c), written by hand for the values
// arguments are made of (render_test.go holds both to the same bytes);
// anything else is left to encoding/json, error included.
func marshalCall(c *OutCall) ([]byte, error) {
	if c == nil {
		return json.Marshal(c)
	}
	b := make([]byte, 0, 64+len(c.Name))
	b = append(b, '{')
	if c.ID != "" {
		b = append(b, `"id":`...)
		b = wirejson.AppendLegacyString(b, c.ID)
		b = append(b, ',')
	}
	b = append(b, `"name":`...)
	b = wirejson.AppendLegacyString(b, c.Name)
	b = append(b, `,"args":`...)
	b, ok := wirejson.AppendValue(b, c.Args, true)
	if !ok {
		return json.Marshal(c)
	}
	return append(b, '}'), nil
}
