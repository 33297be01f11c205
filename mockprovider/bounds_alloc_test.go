package mockprovider_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// manyPartsGemini is a Gemini body of n one-letter text parts: the
// request that costs the most memory per byte sent.
func manyPartsGemini(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"contents":[{"role":"user","parts":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"text":"a"}`)
	}
	b.WriteString(`]}]}`)
	return b.Bytes()
}

// allocated is the bytes f allocates on the heap (the process's total:
// nothing else runs meanwhile).
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// What a many-parts Gemini request allocates, in multiples of its size:
// decoding into the wire structs and the neutral conversation, and
// everything the server does around that (the rules, the model, the
// answer, the journal). The decode's cost is the dialect's (Part is 256
// bytes per 13-byte part, and the slice grows to it step by step); the
// server's own stages must stay a small multiple of the body. The body is
// over the memo's largest key (1 MiB), so each decode is a full one.
// Measured: go test -run TestManyPartsGeminiAllocation -v ./mockprovider/
func TestManyPartsGeminiAllocation(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation measurement: the race detector slows it tenfold")
	}
	body := manyPartsGemini(100_000)
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	d, _ := ts.Mock.Dialect(conv.Gemini)
	newRequest := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, d.(dialect.Client).Endpoint("gemini-2.5-flash", false), bytes.NewReader(body))
		d.(dialect.Client).SetAuth(r.Header, "sk-alloc")
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	var aerrDecode error
	decoding := allocated(func() {
		r := newRequest()
		r.SetPathValue("action", "gemini-2.5-flash:generateContent") // what the route's pattern sets
		x := &dialect.Exchange{R: r, Env: &rules.Env{Options: rules.DefaultOptions()}}
		if _, _, aerr := d.Decode(x, body); aerr != nil {
			aerrDecode = aerr
		}
	})
	if aerrDecode != nil {
		t.Fatal(aerrDecode)
	}
	rec := httptest.NewRecorder()
	whole := allocated(func() { ts.Mock.ServeHTTP(rec, newRequest()) })
	if rec.Code != http.StatusOK {
		t.Fatalf("answered %d: %.300s", rec.Code, rec.Body)
	}
	size := float64(len(body))
	t.Logf("body %d bytes: decoding allocates %.1f×, the whole request %.1f×, the server's own stages %.1f×",
		len(body), float64(decoding)/size, float64(whole)/size, float64(whole-min(decoding, whole))/size)
	if around := float64(whole-min(decoding, whole)) / size; around > 10 {
		t.Errorf("the server's stages around decoding allocate %.1f× the body, want at most 10×", around)
	}
	if ratio := float64(whole) / size; ratio > 40 {
		t.Errorf("the whole request allocates %.1f× the body, want at most 40×", ratio)
	}

	// The smallest parts, {}, cost the most per byte: 256 bytes each for
	// 3 sent (the real API refuses them, "required oneof field 'data'
	// must have one initialized field", but only after decoding). Sized
	// up front they are one slice, not five times it. And since the size
	// is read before the parts are validated, a body of commas must buy
	// no more than that.
	for _, worst := range []struct{ name, parts string }{
		{"empty parts", strings.TrimSuffix(strings.Repeat("{},", len(body)/3), ",")},
		{"commas", strings.Repeat(",", len(body))},
	} {
		b := []byte(`{"contents":[{"role":"user","parts":[` + worst.parts + `]}]}`)
		rec = httptest.NewRecorder()
		n := allocated(func() {
			r := newRequest()
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.ContentLength = int64(len(b))
			ts.Mock.ServeHTTP(rec, r)
		})
		ratio := float64(n) / float64(len(b))
		t.Logf("%s, %d bytes: answered %d, allocates %.1f×", worst.name, len(b), rec.Code, ratio)
		if ratio > 120 {
			t.Errorf("%s allocate %.1f× their size, want at most 120×", worst.name, ratio)
		}
	}
}
