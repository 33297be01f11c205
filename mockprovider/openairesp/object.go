package openairesp

import (
	"encoding/json"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// kv is one field of an object, in order.
type kv struct {
	k string
	v any
}

// object is a JSON object whose fields keep the order the real API sends
// them in (clients diff recordings; order matters to humans reading them).
// The Response object and the stream events are written directly
// (render.go, stream.go); object serves the rare answers: the stored
// response endpoints and in-stream errors.
type object []kv

// MarshalJSON encodes the whole tree in one pass. Letting encoding/json
// call a MarshalJSON at every nesting level re-validates and re-compacts
// each level's output, which made encoding the costliest part of a
// Responses request.
func (o object) MarshalJSON() ([]byte, error) { return appendValue(make([]byte, 0, 1024), o) }

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case object:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = wirejson.AppendString(b, f.k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, f.v); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []object:
		return appendArray(b, x)
	case []any:
		return appendArray(b, x)
	case string:
		return wirejson.AppendString(b, x), nil
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case json.RawMessage:
		if len(x) == 0 {
			return append(b, "null"...), nil
		}
		return append(b, x...), nil
	case jsontext.Value:
		if len(x) == 0 {
			return append(b, "null"...), nil
		}
		return append(b, x...), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

func appendArray[T any](b []byte, xs []T) ([]byte, error) {
	b = append(b, '[')
	for i, e := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendValue(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
