package openaichat

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Images: where they may appear and what an inline one must be.

var RuleImageOnlyInUser = set.Add(rules.Rule{
	ID: "openai-chat.image-only-in-user-messages", Level: rules.MUST, Family: familyResults, Feature: "images",
	Summary: "Image URLs appear only in user messages; a tool message may carry text only.",
	Refs: []rules.Ref{
		{URL: "https://github.com/strands-agents/sdk-python/issues/320"},
	},
	Cases: []rules.Case{
		{Name: "image in a tool message",
			Bad: body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Show the chart."), callMsg(call("call_1", "Paris")),
				obj{"role": "tool", "tool_call_id": "call_1", "content": arr{
					obj{"type": "text", "text": "chart attached"},
					obj{"type": "image_url", "image_url": obj{"url": "data:image/png;base64,iVBORw0KGgo="}}}}}),
			Good: body(arr{obj{"role": "system", "content": "Be brief."}, userMsg("Show the chart."), callMsg(call("call_1", "Paris")),
				obj{"role": "tool", "tool_call_id": "call_1", "content": arr{obj{"type": "text", "text": "chart attached (image omitted)"}}}}),
			WantStatus: 400, WantMessage: "Invalid 'messages[3]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL."},
	},
}, func(r *Request, _ *rules.Env) []rules.Violation {
	var out []rules.Violation
	for _, m := range r.Messages[r.checkFrom():] {
		if m.Role == "user" || !m.HasRole {
			continue
		}
		for _, part := range m.Parts {
			if part.Type == "image_url" {
				p := fmt.Sprintf("messages[%d]", m.Index)
				out = append(out, badRequest(atMessage(m.Index), p, p, "invalid_value",
					fmt.Sprintf("Invalid '%s'. Image URLs are only allowed for messages with role 'user', but this message with role '%s' contains an image URL.", p, m.Role)))
				break
			}
		}
	}
	return out
})

// UnsupportedImageMessage is the API's answer to inline image bytes that
// are none of the formats it reads (its wording, "has of one", kept).
const UnsupportedImageMessage = "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp']."

var RuleImageFormat = set.Add(rules.Rule{
	ID: "openai-chat.image-format", Level: rules.MUST, Family: familyResults, Feature: "images",
	Summary: "An image sent inline (a base64 data URL) is a PNG, JPEG, GIF or WebP image, whatever its data URL's media type says.",
	Refs: []rules.Ref{
		{URL: "testdata/corpus/traceloop-openllmetry.jsonl", Quote: "test_vision_base64.yaml#4: text bytes labelled image/jpeg, recorded 400 with this text, param null, code invalid_image_format"},
	},
	Cases: []rules.Case{
		{Name: "text bytes labelled image/jpeg",
			Bad: body(arr{obj{"role": "user", "content": arr{obj{"type": "text", "text": "What is in this image?"},
				obj{"type": "image_url", "image_url": obj{"url": "data:image/jpeg;base64,UGxlYXNlIHNldCBhIHVzZXItYWdlbnQ="}}}}}),
			Good: body(arr{obj{"role": "user", "content": arr{obj{"type": "text", "text": "What is in this image?"},
				obj{"type": "image_url", "image_url": obj{"url": "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAA=="}}}}}),
			WantStatus: 400, WantMessage: UnsupportedImageMessage},
	},
}, checkImageFormat)

// checkImageFormat reads the first bytes of each inline image: the API
// decodes the image itself, so a data URL whose bytes are not an image is
// refused even when its media type claims one. A URL the API would fetch
// is not judged (the mock fetches nothing).
func checkImageFormat(r *Request, _ *rules.Env) []rules.Violation {
	for _, m := range r.Messages[r.checkFrom():] {
		for j, part := range m.Parts {
			if part.Type != "image_url" {
				continue
			}
			_, data, ok := splitDataURL(part.ImageURL)
			if !ok || imageFormat(data) {
				continue
			}
			return []rules.Violation{badRequest(atMessage(m.Index), fmt.Sprintf("messages[%d].content[%d].image_url.url", m.Index, j), "", "invalid_image_format", UnsupportedImageMessage)}
		}
	}
	return nil
}

// imageFormat reports whether base64 data starts like a PNG, JPEG, GIF or
// WebP file. Only the first 16 bytes are decoded.
func imageFormat(data string) bool {
	head := data[:min(len(data), 24)]
	head = head[:len(head)/4*4]
	b, err := base64.StdEncoding.DecodeString(head)
	if err != nil {
		if b, err = base64.URLEncoding.DecodeString(head); err != nil {
			return false
		}
	}
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")),
		bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}),
		bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")),
		len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return true
	}
	return false
}
