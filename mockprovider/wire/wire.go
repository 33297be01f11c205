// Package wire is the plumbing every dialect shares: the error value a
// dialect renders in its own envelope, deterministic ids, bounded bodies and
// paced server-sent events.
package wire

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// APIError is an error answer before its dialect's envelope is put on it.
type APIError struct {
	Status  int
	Type    string // OpenAI/Anthropic error.type; Gemini error.status
	Message string
	Param   any   // OpenAI only (string or nil)
	Code    any   // OpenAI only (string or nil)
	Details []any // Gemini only
	// RuleID is sent as X-Toolwire-Rule when a catalog rule caused this.
	RuleID  string
	Headers http.Header
}

func (e *APIError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message) }

// FromViolation turns an answered violation into an error answer.
func FromViolation(v *rules.Violation) *APIError {
	return &APIError{Status: v.Status, Type: v.ErrType, Message: v.Message, Param: v.Param, Code: v.Code, RuleID: v.Rule}
}

// RuleHeader is the extra header naming the rule a request broke.
const RuleHeader = "X-Toolwire-Rule"

// WriteJSON writes a JSON body with a status.
func WriteJSON(w http.ResponseWriter, status int, body any) {
	b, err := json.Marshal(body)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"toolwire: encoding failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// ErrTooLarge is returned by ReadBody when the body exceeds the limit.
var ErrTooLarge = errors.New("request body too large")

// ReadBody reads at most limit bytes of the request body into a fresh
// buffer. It must stay fresh (never pooled or reused): the decoders keep
// spans of it instead of copies, and the journal keeps the body itself.
func ReadBody(r *http.Request, limit int64) ([]byte, error) {
	var b []byte
	var err error
	if n := r.ContentLength; n >= 0 && n <= limit {
		// The declared length sizes the buffer at once (io.ReadAll starts
		// at 512 bytes and grows); one spare byte lets EOF be seen without
		// growing. A body longer than declared is still read in full up to
		// the limit.
		b, err = readAll(io.LimitReader(r.Body, limit+1), make([]byte, 0, n+1))
	} else {
		b, err = io.ReadAll(io.LimitReader(r.Body, limit+1))
	}
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, ErrTooLarge
	}
	return b, nil
}

// readAll is io.ReadAll into a buffer the caller sized.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // let append pick the next capacity
		}
	}
}

// IDs mints deterministic ids: the same session making the same requests
// gets the same ids, run after run, so recordings and reports diff cleanly.
type IDs struct {
	seed string
	n    atomic.Uint64
}

// NewIDs starts an id sequence for a seed (the session key).
func NewIDs(seed string) *IDs { return &IDs{seed: seed} }

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Next returns prefix followed by n base62 characters.
func (g *IDs) Next(prefix string, n int) string {
	k := g.n.Add(1)
	var in [128]byte // the hash input, on the stack for usual key lengths
	sum := sha256.Sum256(strconv.AppendUint(append(append(in[:0], g.seed...), 0), k, 10))
	var out strings.Builder
	out.Grow(len(prefix) + n)
	out.WriteString(prefix)
	for i := 0; i < n; i++ {
		out.WriteByte(base62[int(sum[i%len(sum)]+byte(i/len(sum)))%len(base62)])
	}
	return out.String()
}

// Reset restarts the sequence (session reset).
func (g *IDs) Reset() { g.n.Store(0) }
