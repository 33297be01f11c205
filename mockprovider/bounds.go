package mockprovider

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
)

// A decoded request costs many times its size (a 28 MiB Gemini body of
// two million one-letter parts decodes into well over a gigabyte), so how
// many decode at once is bounded (Options.MaxConcurrentDecodes), and a
// request's work has a deadline (Options.WorkTimeout).

// DefaultWorkTimeout bounds a request's work: waiting for a decode slot,
// decoding, the rules and the model, until its answer starts.
const DefaultWorkTimeout = 60 * time.Second

// DefaultMaxConcurrentDecodes is twice the CPUs Go may use: decoding is
// CPU work, so more at once only adds memory.
func DefaultMaxConcurrentDecodes() int { return 2 * runtime.GOMAXPROCS(0) }

// decodeSlots is the semaphore over decoding (and the rules, which read
// the decoded request).
type decodeSlots struct {
	slots   chan struct{}
	waiting atomic.Int64
}

func newDecodeSlots(n int) *decodeSlots { return &decodeSlots{slots: make(chan struct{}, n)} }

// acquire takes a slot, waiting until one is free, ctx ends or the
// deadline passes (context.DeadlineExceeded).
func (d *decodeSlots) acquire(ctx context.Context, deadline time.Time) error {
	select {
	case d.slots <- struct{}{}:
		return nil
	default:
	}
	d.waiting.Add(1)
	defer d.waiting.Add(-1)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case d.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return context.DeadlineExceeded
	}
}

func (d *decodeSlots) release() { <-d.slots }

// DecodeStats is what the decode bound is doing: requests decoding now,
// requests waiting for a slot, and the bound.
type DecodeStats struct {
	Running int `json:"running"`
	Waiting int `json:"waiting"`
	Max     int `json:"max"`
}

func (d *decodeSlots) stats() DecodeStats {
	return DecodeStats{Running: len(d.slots), Waiting: int(d.waiting.Load()), Max: cap(d.slots)}
}

// Decodes reports the decode bound's state (also in GET /_toolwire/health).
func (s *Server) Decodes() DecodeStats { return s.decodes.stats() }
