package openaichat

import (
	"github.com/go-json-experiment/json"
)

// marshalArguments is a call's arguments as an answer carries them and
// the prompt the cache hashes renders them: keys sorted, as the real
// API's are stable.
func marshalArguments(args map[string]any) ([]byte, error) {
	return json.Marshal(args, json.Deterministic(true))
}
