package gemini

import (
	"strconv"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// The answer is written by hand, byte for byte what json.Marshal makes of
// a GenerateContentResponse (fields in declaration order, omitempty, HTML
// escaping), because the reflective encoder was a visible share of every
// request. Function arguments, free-form maps, are encoded once per call
// (encodeArgs), for the usage count and the answer. The JSON values
// themselves are written by jsonscan.AppendJSON and AppendString.
// encodeReflect is the reference (see encode_test.go).

// encodeArgs encodes each call's arguments once; false when one cannot be
// encoded.
func encodeArgs(calls []OutPart) bool {
	for _, p := range calls {
		b, ok := jsonscan.AppendJSON(nil, p.FunctionCall.Args)
		if !ok {
			return false
		}
		p.FunctionCall.encodedArgs = b
	}
	return true
}

// encodedCallBytes is callBytes from the encoded arguments: the length of
// json.Marshal of each OutCall.
func encodedCallBytes(calls []OutPart) int {
	n := 0
	for _, p := range calls {
		fc := p.FunctionCall
		n += len(`{"name":,"args":}`) + stringLen(fc.Name) + len(fc.encodedArgs)
		if fc.ID != "" {
			n += len(`"id":,`) + stringLen(fc.ID)
		}
	}
	return n
}

// appendJSON appends the chunk as json.Marshal(h.message(ch)) would.
func (h responseHead) appendJSON(b []byte, ch chunk) []byte {
	b = append(b, `{"candidates":[{"content":{"parts":`...)
	if !ch.hasText && len(ch.calls) == 0 {
		b = append(b, "null"...) // what a nil parts list encodes to
	} else {
		b = append(b, '[')
		if ch.hasText {
			b = append(b, `{"text":`...)
			b = jsonscan.AppendString(b, ch.text)
			b = append(b, '}')
		}
		for i, p := range ch.calls {
			if i > 0 || ch.hasText {
				b = append(b, ',')
			}
			b = appendPart(b, p)
		}
		b = append(b, ']')
	}
	b = append(b, `,"role":"model"}`...)
	if ch.last {
		b = append(b, `,"finishReason":"STOP"`...)
	}
	b = append(b, `,"index":0`...)
	if ch.last && h.calls {
		b = append(b, `,"finishMessage":`...)
		b = jsonscan.AppendString(b, finishMessageCalls)
	}
	out := tokens(ch.outBytes)
	b = append(b, `}],"usageMetadata":{"promptTokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt), 10)
	b = append(b, `,"candidatesTokenCount":`...)
	b = strconv.AppendInt(b, int64(out), 10)
	b = append(b, `,"totalTokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt+out), 10)
	b = append(b, `,"promptTokensDetails":[{"modality":"TEXT","tokenCount":`...)
	b = strconv.AppendInt(b, int64(h.prompt), 10)
	b = append(b, `}]},"modelVersion":`...)
	b = jsonscan.AppendString(b, h.model)
	b = append(b, `,"responseId":`...)
	b = jsonscan.AppendString(b, h.id)
	return append(b, '}')
}

// sizeHint is enough room for the chunk's JSON in most cases, so the
// buffer is allocated once: the fixed members and numbers, the strings
// (escapes rarely add more than the slack) and the encoded arguments.
func (h responseHead) sizeHint(ch chunk) int {
	n := 384 + len(h.model) + len(h.id) + len(ch.text) + len(ch.text)/8
	for _, p := range ch.calls {
		n += 96 + len(p.FunctionCall.ID) + len(p.FunctionCall.Name) + len(p.FunctionCall.encodedArgs) + len(p.ThoughtSignature)
	}
	return n
}

// appendPart writes an OutPart: text, functionCall, thoughtSignature, each
// only when set.
func appendPart(b []byte, p OutPart) []byte {
	b = append(b, '{')
	comma := false
	if p.Text != nil {
		b = append(b, `"text":`...)
		b = jsonscan.AppendString(b, *p.Text)
		comma = true
	}
	if fc := p.FunctionCall; fc != nil {
		if comma {
			b = append(b, ',')
		}
		b = append(b, `"functionCall":{`...)
		if fc.ID != "" {
			b = append(b, `"id":`...)
			b = jsonscan.AppendString(b, fc.ID)
			b = append(b, ',')
		}
		b = append(b, `"name":`...)
		b = jsonscan.AppendString(b, fc.Name)
		b = append(b, `,"args":`...)
		b = append(b, fc.encodedArgs...)
		b = append(b, '}')
		comma = true
	}
	if p.ThoughtSignature != "" {
		if comma {
			b = append(b, ',')
		}
		b = append(b, `"thoughtSignature":`...)
		b = jsonscan.AppendString(b, p.ThoughtSignature)
	}
	return append(b, '}')
}
