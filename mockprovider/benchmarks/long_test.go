package benchmarks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
)

// longBody is the result turn of d with its call/result pair repeated
// rounds times (distinct ids).
func longBody(tb testing.TB, d conv.Dialect, rounds int) []byte {
	var m map[string]any
	if err := json.Unmarshal(body(tb, d, "result", false), &m); err != nil {
		tb.Fatal(err)
	}
	key := ""
	for _, k := range []string{"messages", "input", "contents"} {
		if _, ok := m[k]; ok {
			key = k
		}
	}
	list := m[key].([]any)
	head, pair := list[:len(list)-2], list[len(list)-2:]
	pj, _ := json.Marshal(pair)
	out := append([]any{}, head...)
	for i := 0; i <= rounds; i++ {
		s := strings.ReplaceAll(string(pj), "call_1", fmt.Sprintf("call_%d", i+1))
		s = strings.ReplaceAll(s, "toolu_1", fmt.Sprintf("toolu_%d", i+1))
		var p []any
		_ = json.Unmarshal([]byte(s), &p)
		out = append(out, p...)
	}
	m[key] = out
	b, _ := json.Marshal(m)
	return b
}

// BenchmarkLong is BenchmarkHandler's result turn after 0, 10, 100 and
// 400 earlier tool rounds: how a request's cost grows with the
// conversation a long agent loop resends.
func BenchmarkLong(b *testing.B) {
	for _, d := range conv.Dialects {
		for _, rounds := range []int{0, 10, 100, 400} {
			b.Run(fmt.Sprintf("%s/%d", d, rounds), func(b *testing.B) {
				srv := mockprovider.New(mockprovider.Options{})
				h := newHandlerLoop(b, srv, d, false, "bench-long", longBody(b, d, rounds))
				for range 20 {
					h.once(b)
				}
				b.SetBytes(int64(len(h.body)))
				b.ReportAllocs()
				for b.Loop() {
					h.once(b)
				}
			})
		}
	}
}

// BenchmarkLongLoop is an agent loop after 400 earlier rounds: each
// request in the session resends the one before it with one more round,
// 32 times over, then starts again (a shorter request: the session reuses
// what it shares with the longest). BenchmarkLong repeats one request.
func BenchmarkLongLoop(b *testing.B) {
	const rounds, steps = 400, 32
	for _, d := range conv.Dialects {
		b.Run(string(d), func(b *testing.B) {
			srv := mockprovider.New(mockprovider.Options{})
			loops := make([]*handlerLoop, steps)
			size := 0
			for i := range loops {
				loops[i] = newHandlerLoop(b, srv, d, false, "bench-long-loop", longBody(b, d, rounds+i))
				size += len(loops[i].body)
			}
			for _, h := range loops {
				h.once(b)
			}
			b.SetBytes(int64(size / steps))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				loops[i%steps].once(b)
				i++
			}
		})
	}
}
