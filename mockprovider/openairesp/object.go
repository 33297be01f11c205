package openairesp

import "encoding/json"

// kv is one field of an object, in order.
type kv struct {
	k string
	v any
}

// object is a JSON object whose fields keep the order the real API sends
// them in (clients diff recordings; order matters to humans reading them):
// the stored response endpoints, the compaction answer and in-stream
// errors.
type object []kv

// MarshalJSON writes the fields in order, each value by the library.
func (o object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range o {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(f.k)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
