package gemini

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Thought signatures the mock issues are verifiable, so a signature that
// was altered, invented or taken from another conversation is caught
// rather than guessed: the bytes are shaped like the real ones ("CiQB…",
// a 0x0a tag and a 36-byte payload) and the payload is a nonce followed by
// an HMAC of the nonce and the function's name.

const (
	signatureTag   = 0x0a
	signatureNonce = 12
	signatureMAC   = 24
)

// signatureKey keys the HMAC. It is fixed, so signatures stay valid across
// restarts and in recordings; it guards against mistakes, not attackers.
var signatureKey = []byte("toolwire gemini thought signature v1")

func signatureMACOf(nonce []byte, name string) []byte {
	h := hmac.New(sha256.New, signatureKey)
	h.Write(nonce)
	h.Write([]byte{0})
	h.Write([]byte(name))
	return h.Sum(nil)[:signatureMAC]
}

// mintSignature signs a call to the named function.
func mintSignature(ids *wire.IDs, name string) string {
	nonce := []byte(ids.Next("", signatureNonce))
	b := append([]byte{signatureTag, signatureNonce + signatureMAC}, nonce...)
	b = append(b, signatureMACOf(nonce, name)...)
	return base64.StdEncoding.EncodeToString(b)
}

// issuedSignature reports whether sig is one the mock minted for a call
// to name.
func issuedSignature(sig []byte, name string) bool {
	if len(sig) != 2+signatureNonce+signatureMAC || sig[0] != signatureTag || sig[1] != signatureNonce+signatureMAC {
		return false
	}
	nonce := sig[2 : 2+signatureNonce]
	return hmac.Equal(sig[2+signatureNonce:], signatureMACOf(nonce, name))
}

// Signature is a proto bytes field as JSON carries it: base64, standard
// or URL-safe, padded or not. The text is kept as sent (what the journal
// and the history show), the bytes beside it.
type Signature struct {
	Text  string
	Bytes []byte
}

// UnmarshalJSONFrom takes a base64 string; anything else is the invalid
// value the API reports for a TYPE_BYTES field.
func (s *Signature) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() != '"' {
		if _, err := dec.ReadValue(); err != nil {
			return err
		}
		return &wirejson.InvalidError{Message: typeBytes}
	}
	var text string
	if err := json.UnmarshalDecode(dec, &text); err != nil {
		return err
	}
	b, ok := decodeBase64(text)
	if !ok {
		return &wirejson.InvalidError{Message: typeBytes}
	}
	*s = Signature{Text: text, Bytes: b}
	return nil
}

// MarshalJSONTo writes the signature as it was sent.
func (s Signature) MarshalJSONTo(enc *jsontext.Encoder) error {
	return enc.WriteToken(jsontext.String(s.Text))
}

const typeBytes = "TYPE_BYTES"

func decodeBase64(s string) ([]byte, bool) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}

// isBypassSignature reports one of the documented dummy signatures, sent
// as its text or as the base64 of its text: the field is bytes, and a
// client that holds the dummy value as bytes (google-genai for Python)
// sends it base64-encoded, as proto JSON does every bytes field.
func isBypassSignature(s *Signature) bool {
	return slices.Contains(bypassSignatures, s.Text) || slices.Contains(bypassSignatures, string(s.Bytes))
}
