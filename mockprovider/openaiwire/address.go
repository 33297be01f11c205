package openaiwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// SetAuth sets the bearer token the SDK sends (openai-go's WithAPIKey).
func SetAuth(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

// ErrorMessage checks that body is {"error":{"message","type","param",
// "code"}} (param and code present even when null) and returns the message.
func ErrorMessage(body []byte) (string, error) {
	var env struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return "", errors.New("error body is not JSON")
	}
	for _, k := range []string{"message", "type", "param", "code"} {
		if _, ok := env.Error[k]; !ok {
			return "", fmt.Errorf("OpenAI envelope lacks error.%s", k)
		}
	}
	var msg string
	_ = json.Unmarshal(env.Error["message"], &msg)
	return msg, nil
}
