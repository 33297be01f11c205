package session

import "errors"

// Fault is a pending injected failure (see the faults documentation).
type Fault struct {
	Kind      string `json:"kind"`
	Remaining int    `json:"remaining"` // requests still to fail; <0 = every request
	After     int    `json:"after,omitempty"`
	MS        int    `json:"ms,omitempty"`
}

// ErrTooManyFaults is AddFault's answer once MaxQueuedFaults are queued.
var ErrTooManyFaults = errors.New("too many queued faults for this session")

// AddFault queues a fault for this session's next requests; beyond
// MaxQueuedFaults it refuses with ErrTooManyFaults.
func (s *Session) AddFault(f Fault) error {
	s.mu.Lock()
	if len(s.faults) >= MaxQueuedFaults {
		s.mu.Unlock()
		return ErrTooManyFaults
	}
	s.faults = append(s.faults, &f)
	s.chargeStateLocked(faultCost)
	s.mu.Unlock()
	s.settleBudget()
	return nil
}

// TakeFault returns the first pending fault, counting it down.
func (s *Session) TakeFault() *Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, f := range s.faults {
		if f.Remaining == 0 {
			continue
		}
		if f.Remaining > 0 {
			f.Remaining--
		}
		out := *f
		if f.Remaining == 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
			s.chargeStateLocked(-faultCost)
		}
		return &out
	}
	return nil
}
