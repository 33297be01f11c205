package openaichat

import (
	"github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// marshalArguments is json.Marshal(args, json.Deterministic(true)): what
// a call's arguments become in an answer and in the prompt the cache
// hashes. Every answer with a call encodes them, and the library's
// reflection over a small map was a visible share of a Chat answer, so
// the values arguments are made of are written by hand with the library's
// bytes (args_test.go holds both to the same output); anything else
// (invalid UTF-8, a key beyond ASCII, a NaN, another type) is left to the
// library, which answers as it always did, error included.
func marshalArguments(args map[string]any) ([]byte, error) {
	if b, ok := wirejson.AppendValue(make([]byte, 0, 128), args, false); ok {
		return b, nil
	}
	return json.Marshal(args, json.Deterministic(true))
}
