package anthropic

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
)

// signingKey signs the thinking blocks this process issues. It is random
// per process, as the real API's signatures are opaque: a signature is
// valid only for the exact thinking text it was issued with, so a client
// that edits either is caught, never guessed.
var signingKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}()

// signaturePrefix makes signatures look like the API's (base64 of a
// protobuf envelope, starting "Eq").
var signaturePrefix = []byte{0x12, 0xa4, 0x01, 0x0a}

// sign returns the signature of a thinking block's text.
func sign(thinking string) string {
	m := hmac.New(sha256.New, signingKey)
	m.Write([]byte(thinking))
	return base64.StdEncoding.EncodeToString(m.Sum(append([]byte(nil), signaturePrefix...)))
}

// validSignature reports whether sig was issued by this process for
// thinking.
func validSignature(thinking, sig string) bool {
	return hmac.Equal([]byte(sig), []byte(sign(thinking)))
}

// redactedPrefix makes redacted_thinking data look like the API's (base64
// of a protobuf envelope, as the docs' example "EmwKAhgB…").
var redactedPrefix = []byte{0x12, 0x6c, 0x0a, 0x02, 0x18, 0x01}

// redactedNonceSize is the length of the nonce a redacted block's data
// carries (its only content: the mock has no hidden thinking to encrypt).
const redactedNonceSize = 24

// redactedData issues the opaque data of a redacted_thinking block: the
// nonce and its HMAC, so the data is valid only exactly as issued by this
// process.
func redactedData(nonce string) string {
	m := hmac.New(sha256.New, signingKey)
	m.Write([]byte("redacted_thinking\x00" + nonce))
	raw := append(append(append([]byte(nil), redactedPrefix...), nonce...), m.Sum(nil)...)
	return base64.StdEncoding.EncodeToString(raw)
}

// validRedactedData reports whether data was issued by redactedData.
func validRedactedData(data string) bool {
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(raw) != len(redactedPrefix)+redactedNonceSize+sha256.Size {
		return false
	}
	nonce := string(raw[len(redactedPrefix) : len(redactedPrefix)+redactedNonceSize])
	return hmac.Equal([]byte(data), []byte(redactedData(nonce)))
}

// interleavedBeta is the beta that lets the model think between tool
// calls (and a budget above max_tokens).
const interleavedBeta = "interleaved-thinking-2025-05-14"

// betas reads the anthropic-beta header (comma-separated, may repeat).
func betas(r *http.Request) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, v := range r.Header.Values("Anthropic-Beta") {
		for _, b := range strings.Split(v, ",") {
			if b = strings.TrimSpace(b); b != "" {
				out = append(out, b)
			}
		}
	}
	return out
}

// defaultThinking is what the default model thinks before answering when
// the request enabled thinking and the reply carries no reasoning of its
// own.
const defaultThinking = "Let me work out what the user needs and which tool, if any, answers it."
