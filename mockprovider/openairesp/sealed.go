package openairesp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"strings"
)

// A reasoning item's encrypted_content is the reasoning sealed by the
// API, which a store:false conversation passes back in place of the
// stored item; a compaction item's is the conversation it replaced. The
// mock seals what it issues under a key of its own, so a value that was
// edited, invented or issued elsewhere (another process, the real API)
// fails to open, as the real API's own check fails on it.

// reasoningSeal is random per process, as the real key is the API's
// secret: nothing outside the process can mint a value it accepts.
var reasoningSeal = func() cipher.AEAD {
	key := make([]byte, 16)
	_, _ = rand.Read(key) // crypto/rand never fails on supported platforms
	block, err := aes.NewCipher(key)
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}()

// The sealed value is laid out as a Fernet token, the form of the real
// values ("gAAAAAB…", base64url): a version byte 0x80 and a big-endian
// timestamp, here followed by the nonce and the AES-GCM ciphertext of the
// payload, the header authenticated with it.
const (
	sealVersion = 0x80
	sealHeader  = 1 + 8
)

// What a sealed value stands for, authenticated with it, so a reasoning
// item's value cannot pass for a compaction's.
const (
	sealedReasoningKind  = 'r'
	sealedCompactionKind = 'c'
)

// seal issues an encrypted_content holding payload.
func seal(kind byte, payload []byte, created int64) string {
	ns := reasoningSeal.NonceSize()
	b := make([]byte, sealHeader+ns, sealHeader+ns+len(payload)+reasoningSeal.Overhead())
	b[0] = sealVersion
	binary.BigEndian.PutUint64(b[1:sealHeader], uint64(created))
	_, _ = rand.Read(b[sealHeader:])
	b = reasoningSeal.Seal(b, b[sealHeader:], payload, sealedData(b[:sealHeader], kind))
	return base64.URLEncoding.EncodeToString(b)
}

// unseal is the payload of a value seal issued for kind, exactly as
// issued.
func unseal(kind byte, value string) ([]byte, bool) {
	b, err := base64.URLEncoding.DecodeString(value)
	ns := reasoningSeal.NonceSize()
	if err != nil || len(b) < sealHeader+ns+reasoningSeal.Overhead() || b[0] != sealVersion {
		return nil, false
	}
	plain, err := reasoningSeal.Open(nil, b[sealHeader:sealHeader+ns], b[sealHeader+ns:], sealedData(b[:sealHeader], kind))
	return plain, err == nil
}

// sealedData is what a value authenticates beside its payload: its
// header and its kind.
func sealedData(header []byte, kind byte) []byte {
	return append(append(make([]byte, 0, len(header)+1), header...), kind)
}

// sealedReasoning is what a reasoning item's value holds: the item it
// was issued for.
type sealedReasoning struct {
	ID      string `json:"id"`
	Summary string `json:"summary,omitempty"`
}

// sealReasoning issues the encrypted_content of reasoning item id.
func sealReasoning(id, summary string, created int64) string {
	payload, _ := json.Marshal(sealedReasoning{ID: id, Summary: summary}) // strings only: cannot fail
	return seal(sealedReasoningKind, payload, created)
}

// openReasoning reports whether value is a reasoning item's
// encrypted_content this process issued, exactly as issued.
func openReasoning(value string) (sealedReasoning, bool) {
	plain, ok := unseal(sealedReasoningKind, value)
	var p sealedReasoning
	if !ok || json.Unmarshal(plain, &p) != nil {
		return sealedReasoning{}, false
	}
	return p, true
}

// unverifiedMessage is the API's answer to an encrypted_content it cannot
// open: it names the item by id, or, for an item without one, the value
// by its first and last four characters.
func unverifiedMessage(id, value string) string {
	const reason = " could not be verified. Reason: Encrypted content could not be decrypted or parsed."
	if id != "" {
		return "The encrypted content for item " + id + reason
	}
	if len(value) > 8 {
		value = value[:4] + "..." + value[len(value)-4:]
	}
	return "The encrypted content " + strings.ToValidUTF8(value, "") + reason
}
