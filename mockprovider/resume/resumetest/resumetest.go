// Package resumetest checks a dialect's resumed decoding (package
// resume) against its full decoding: whatever a session received before,
// a request must decide exactly what it decides alone.
package resumetest

import (
	"bytes"
	"reflect"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Dialect is what the checks call of one dialect.
type Dialect struct {
	// InSession decodes body in session s and returns everything the
	// decoding decides (typed request, error, violations, conversation,
	// answer), comparable with reflect.DeepEqual.
	InSession func(s *session.Session, body []byte) any
	// Alone is the same outcome of a full decode.
	Alone func(body []byte) any
	// Reused is how many elements s would reuse decoding body.
	Reused func(s *session.Session, body []byte) int
}

func newSession() *session.Session { return session.NewStore(session.DefaultLimits()).Get("k") }

// Padded is body with resume.MinBody spaces after it: long enough to be
// kept, and the same JSON.
func Padded(body []byte) []byte {
	return append(append([]byte{}, body...), bytes.Repeat([]byte(" "), resume.MinBody)...)
}

// Check decodes prev then next in one session, then next again, and
// fails unless both decodings of next decide what next decides alone.
// It returns how many elements next reused after prev. Both are padded
// to be long enough to keep.
func (d Dialect) Check(t testing.TB, prev, next []byte) int {
	t.Helper()
	prev, next = Padded(prev), Padded(next)
	s := newSession()
	d.InSession(s, prev)
	reused := d.Reused(s, next)
	want := d.Alone(next)
	if got := d.InSession(s, next); !reflect.DeepEqual(got, want) {
		t.Fatalf("resumed decoding differs (%d reused)\nprev %s\nnext %s\ngot  %+v\nwant %+v", reused, prev, next, got, want)
	}
	if got := d.InSession(s, next); !reflect.DeepEqual(got, want) {
		t.Fatalf("decoding next again differs\nnext %s\ngot  %+v\nwant %+v", next, got, want)
	}
	return reused
}

// Case is one request following a previous one.
type Case struct {
	Name string
	Next string
	// Reuses: some elements must be reused, or the case tests nothing.
	Reuses bool
}

// C is a Case.
func C(name, next string, reuses bool) Case { return Case{Name: name, Next: next, Reuses: reuses} }

// Run checks each case after prev.
func (d Dialect) Run(t *testing.T, prev string, cases []Case) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if reused := d.Check(t, []byte(prev), []byte(c.Next)); c.Reuses && reused == 0 {
				t.Fatal("nothing reused: the case does not test resuming")
			}
		})
	}
}

// Loop sends bodies in order in one session, as an agent loop does:
// each reuses at least minReused(i) elements and decides what it decides
// alone. Then it sends them again from several goroutines at once (go
// test -race: what a session keeps is shared read only).
func (d Dialect) Loop(t *testing.T, bodies [][]byte, minReused func(i int) int) {
	s := newSession()
	for i := range bodies {
		bodies[i] = Padded(bodies[i])
	}
	for i, body := range bodies {
		if got, want := d.Reused(s, body), minReused(i); got < want {
			t.Fatalf("request %d reused %d elements, want at least %d", i, got, want)
		}
		if got, want := d.InSession(s, body), d.Alone(body); !reflect.DeepEqual(got, want) {
			t.Fatalf("request %d: resumed decoding differs\ngot  %+v\nwant %+v", i, got, want)
		}
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w % 2; i < len(bodies); i++ {
				if got, want := d.InSession(s, bodies[i]), d.Alone(bodies[i]); !reflect.DeepEqual(got, want) {
					t.Errorf("worker %d request %d: resumed decoding differs", w, i)
					return
				}
			}
		}()
	}
	wg.Wait()
}
