package gemini

import (
	"bytes"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// The fast decoder fills a Request from a body without encoding/json's
// reflection, which was most of the cost of every generateContent
// request. It gives exactly what decodeBody's json.Unmarshal would, and
// only takes the common, well-formed case; for anything else it reports
// false and decodeBody runs as it always has, so error messages and the
// snake_case renaming keep their single reference implementation. It
// turns down:
//   - a body that is not valid JSON or not an object;
//   - a value of the wrong JSON type for its field;
//   - a key repeated in one message (json.Unmarshal merges repeated
//     messages into one another, which is not worth mirroring);
//   - a key with escapes or non-ASCII bytes, one json.Unmarshal would match
//     case-insensitively, and one with an underscore anywhere in a message
//     (normalizeFieldNames may rename it, which re-encodes the body).
//
// Members are visited in the order sent; with no key repeated, every field
// is set at most once, so null simply leaves the zero value (nil for
// pointers and slices) except in a json.RawMessage, which keeps "null" as
// json.Unmarshal does.

// JSON names of each message's fields, in the order the decoders below
// number them (TestFastDecodeKnowsEveryField holds them to the struct
// tags); also used to tell an ignored key from one json.Unmarshal would
// fill by a case-insensitive match. Read only.
var (
	requestKeys       = []string{"contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings", "cachedContent"}
	contentKeys       = []string{"role", "parts"}
	partKeys          = []string{"text", "thought", "thoughtSignature", "functionCall", "functionResponse", "inlineData", "fileData"}
	callKeys          = []string{"id", "name", "args"}
	responseKeys      = []string{"id", "name", "response", "parts", "willContinue", "scheduling"}
	responsePartKeys  = []string{"inlineData", "fileData"}
	blobKeys          = []string{"mimeType", "data", "displayName"}
	fileDataKeys      = []string{"mimeType", "fileUri", "displayName"}
	toolKeys          = []string{"functionDeclarations"}
	declarationKeys   = []string{"name", "description", "parameters", "parametersJsonSchema"}
	toolConfigKeys    = []string{"functionCallingConfig"}
	callingConfigKeys = []string{"mode", "allowedFunctionNames"}
)

// fastDecode decodes a trimmed body that starts with '{'. It validates the
// body first, as json.Unmarshal does, then reads it once, front to back.
func fastDecode(body []byte) (*Request, bool) {
	if !jsonscan.Valid(body) {
		return nil, false
	}
	req := new(Request)
	if !fastRequest(jsonscan.NewCursor(body), req) {
		return nil, false
	}
	return req, true
}

// members reads a message's members and calls set for each key in names,
// with the cursor before the member's value; set must read the value and
// returns false for one it cannot take. Values of unknown keys are
// skipped; a repeated key and one the fast path does not take end the
// read with false. Messages have at most seven fields: the seen set is
// one bitmask.
func members(c *jsonscan.Cursor, names []string, set func(field int) bool) bool {
	if !c.Enter('{') {
		return false
	}
	var seen uint32
	for {
		key, more := c.NextMember()
		if !more {
			return true
		}
		field := fieldIndex(key, names)
		switch {
		case field == unknownKey:
			c.Value()
			continue
		case field == refusedKey:
			return false
		case seen&(1<<field) != 0:
			return false
		}
		seen |= 1 << field
		if !set(field) {
			return false
		}
	}
}

const (
	unknownKey = -1 // json.Unmarshal ignores it
	refusedKey = -2 // the fast path does not take it
)

// fieldIndex is the position of key in names, unknownKey for a key that
// no field takes, or refusedKey (see the comment at the top).
func fieldIndex(key []byte, names []string) int {
	for i, n := range names {
		if string(key) == n {
			return i
		}
	}
	if !jsonscan.PlainKey(key) || bytes.IndexByte(key, '_') >= 0 {
		return refusedKey
	}
	for _, n := range names {
		if strings.EqualFold(string(key), n) {
			return refusedKey
		}
	}
	return unknownKey
}

// Message decoders: each reads one value at the cursor.

func fastRequest(c *jsonscan.Cursor, r *Request) bool {
	return members(c, requestKeys, func(field int) bool {
		switch field {
		case 0:
			return decodeSlice(c, &r.Contents, fastContent)
		case 1:
			return decodePtr(c, &r.SystemInstruction, fastContent)
		case 2:
			return decodeSlice(c, &r.Tools, fastTool)
		case 3:
			return decodePtr(c, &r.ToolConfig, fastToolConfig)
		case 4:
			r.GenerationConfig = jsonscan.Clone(c.Value())
		case 5:
			r.SafetySettings = jsonscan.Clone(c.Value())
		case 6:
			return setString(c, &r.CachedContent)
		}
		return true
	})
}

func fastContent(c *jsonscan.Cursor, content *Content) bool {
	return members(c, contentKeys, func(field int) bool {
		if field == 0 {
			return setString(c, &content.Role)
		}
		return decodeSlice(c, &content.Parts, fastPart)
	})
}

func fastPart(c *jsonscan.Cursor, p *Part) bool {
	return members(c, partKeys, func(field int) bool {
		switch field {
		case 0:
			return setStringPtr(c, &p.Text)
		case 1:
			return setBool(c, &p.Thought)
		case 2:
			return setString(c, &p.ThoughtSignature)
		case 3:
			return decodePtr(c, &p.FunctionCall, fastFunctionCall)
		case 4:
			return decodePtr(c, &p.FunctionResponse, fastFunctionResponse)
		case 5:
			return decodePtr(c, &p.InlineData, fastBlob)
		default:
			return decodePtr(c, &p.FileData, fastFileData)
		}
	})
}

func fastFunctionCall(c *jsonscan.Cursor, fc *FunctionCall) bool {
	return members(c, callKeys, func(field int) bool {
		switch field {
		case 0:
			return setString(c, &fc.ID)
		case 1:
			return setString(c, &fc.Name)
		}
		fc.Args = jsonscan.Clone(c.Value())
		return true
	})
}

func fastFunctionResponse(c *jsonscan.Cursor, fr *FunctionResponse) bool {
	return members(c, responseKeys, func(field int) bool {
		switch field {
		case 0:
			return setString(c, &fr.ID)
		case 1:
			return setString(c, &fr.Name)
		case 2:
			fr.Response = jsonscan.Clone(c.Value())
			return true
		case 3:
			return decodeSlice(c, &fr.Parts, fastResponsePart)
		case 4:
			return setBoolPtr(c, &fr.WillContinue)
		default:
			return setString(c, &fr.Scheduling)
		}
	})
}

func fastResponsePart(c *jsonscan.Cursor, p *FunctionResponsePart) bool {
	return members(c, responsePartKeys, func(field int) bool {
		if field == 0 {
			return decodePtr(c, &p.InlineData, fastBlob)
		}
		return decodePtr(c, &p.FileData, fastFileData)
	})
}

func fastBlob(c *jsonscan.Cursor, bl *Blob) bool {
	return members(c, blobKeys, func(field int) bool {
		switch field {
		case 0:
			return setString(c, &bl.MIMEType)
		case 1:
			return setString(c, &bl.Data)
		default:
			return setString(c, &bl.DisplayName)
		}
	})
}

func fastFileData(c *jsonscan.Cursor, fd *FileData) bool {
	return members(c, fileDataKeys, func(field int) bool {
		switch field {
		case 0:
			return setString(c, &fd.MIMEType)
		case 1:
			return setString(c, &fd.FileURI)
		default:
			return setString(c, &fd.DisplayName)
		}
	})
}

func fastTool(c *jsonscan.Cursor, t *Tool) bool {
	return members(c, toolKeys, func(int) bool {
		return decodeSlice(c, &t.FunctionDeclarations, fastDeclaration)
	})
}

func fastDeclaration(c *jsonscan.Cursor, fd *FunctionDeclaration) bool {
	return members(c, declarationKeys, func(field int) bool {
		switch field {
		case 0:
			return setString(c, &fd.Name)
		case 1:
			return setString(c, &fd.Description)
		case 2:
			fd.Parameters = jsonscan.Clone(c.Value())
		default:
			fd.ParametersJSONSchema = jsonscan.Clone(c.Value())
		}
		return true
	})
}

func fastToolConfig(c *jsonscan.Cursor, tc *ToolConfig) bool {
	return members(c, toolConfigKeys, func(int) bool {
		return decodePtr(c, &tc.FunctionCallingConfig, fastCallingConfig)
	})
}

func fastCallingConfig(c *jsonscan.Cursor, fc *FunctionCallingConfig) bool {
	return members(c, callingConfigKeys, func(field int) bool {
		if field == 0 {
			return setString(c, &fc.Mode)
		}
		return decodeSlice(c, &fc.AllowedFunctionNames, setString)
	})
}

// Field readers, each json.Unmarshal of the value at the cursor into a
// fresh field of its type.

// skipNull moves past a null and reports whether there was one.
func skipNull(c *jsonscan.Cursor) bool {
	if c.Peek() != 'n' {
		return false
	}
	c.Value()
	return true
}

// decodeSlice fills a slice from an array (null leaves it nil, [] makes it
// empty, a null element stays the zero value), sized once.
func decodeSlice[T any](c *jsonscan.Cursor, dst *[]T, elem func(*jsonscan.Cursor, *T) bool) bool {
	if skipNull(c) {
		return true
	}
	out := make([]T, c.CountElements())
	if !c.Enter('[') {
		return false
	}
	for i := 0; c.NextElement(); i++ {
		if !skipNull(c) && !elem(c, &out[i]) {
			return false
		}
	}
	*dst = out
	return true
}

// decodePtr fills a pointer to a message from an object; null leaves nil.
func decodePtr[T any](c *jsonscan.Cursor, dst **T, decode func(*jsonscan.Cursor, *T) bool) bool {
	if skipNull(c) {
		return true
	}
	p := new(T)
	if !decode(c, p) {
		return false
	}
	*dst = p
	return true
}

func setString(c *jsonscan.Cursor, dst *string) bool {
	if skipNull(c) {
		return true
	}
	if c.Peek() != '"' {
		return false
	}
	*dst = jsonscan.String(c.Value())
	return true
}

func setStringPtr(c *jsonscan.Cursor, dst **string) bool {
	if skipNull(c) {
		return true
	}
	if c.Peek() != '"' {
		return false
	}
	s := jsonscan.String(c.Value())
	*dst = &s
	return true
}

func setBool(c *jsonscan.Cursor, dst *bool) bool {
	if skipNull(c) {
		return true
	}
	b, ok := jsonscan.Bool(c.Value())
	*dst = b
	return ok
}

func setBoolPtr(c *jsonscan.Cursor, dst **bool) bool {
	if skipNull(c) {
		return true
	}
	b, ok := jsonscan.Bool(c.Value())
	if !ok {
		return false
	}
	*dst = &b
	return true
}
