// Package resumetest checks a dialect's resumed decoding (package
// resume) against its full decoding: whatever a session received before,
// a request must decide exactly what it decides alone.
package resumetest

import (
	"bytes"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/resume"
	"github.com/toolwire/toolwire/mockprovider/rules"
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

// Conversation builds one dialect's requests for the checks: the members
// before the conversation array (Head, ending in a comma), the array's
// name, its first element and the elements of tool round i.
type Conversation struct {
	Head, Array, First string
	Round              func(i int) []string
}

// Elems is the array after rounds tool rounds.
func (c Conversation) Elems(rounds int) []string {
	out := []string{c.First}
	for i := range rounds {
		out = append(out, c.Round(i)...)
	}
	return out
}

// Body is a request: head, the array holding elems, then tail (which
// starts with a comma when not empty).
func (c Conversation) Body(head string, elems []string, tail string) string {
	return `{` + head + `"` + c.Array + `":[` + strings.Join(elems, ",") + `]` + tail + `}`
}

// Rounds is the previous request of the shared cases: five tool rounds.
const Rounds = 5

// Cases are the cases every dialect's array has, each following
// Body(Head, Elems(Rounds), ""): the next round, a broken or truncated
// body, elements removed, the members reordered, nothing to resume.
func (c Conversation) Cases() []Case {
	h, base := c.Head, c.Elems(Rounds)
	next := append(append([]string{}, base...), c.Round(Rounds)...)
	return []Case{
		C("identical", c.Body(h, base, ``), true),
		C("next round", c.Body(h, next, ``), true),
		C("trailing comma", `{`+h+`"`+c.Array+`":[`+strings.Join(base, ",")+`,]}`, false),
		C("truncated", c.Body(h, next, ``)[:len(c.Body(h, base, ``))+30], true),
		C("elements removed", c.Body(h, base[:4], ``), true),
		C("first element removed", c.Body(h, base[1:], ``), false),
		C("reordered keys", `{"`+c.Array+`":[`+strings.Join(next, ",")+`],`+strings.TrimSuffix(h, ",")+`}`, false),
		C("empty array", c.Body(h, nil, ``), false),
		C("not an object", `[1]`, false),
	}
}

// LoopBodies are an agent loop's requests, 0 to 9 tool rounds, each with
// tail after the array.
func (c Conversation) LoopBodies(tail string) [][]byte {
	var bodies [][]byte
	for rounds := range 10 {
		bodies = append(bodies, []byte(c.Body(c.Head, c.Elems(rounds), tail)))
	}
	return bodies
}

// Seed adds to f the fuzz seeds every dialect has: each rule case's bad
// and good request after each other, and a request then its next round.
func (c Conversation) Seed(f *testing.F, cases []rules.Case) {
	for _, rc := range cases {
		f.Add([]byte(rc.Good), []byte(rc.Bad))
		f.Add([]byte(rc.Bad), []byte(rc.Good))
	}
	base := c.Elems(3)
	f.Add([]byte(c.Body(c.Head, base, ``)), []byte(c.Body(c.Head, append(base, c.Round(3)...), ``)))
}
