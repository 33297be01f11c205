package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var geminiHelperSeeds = []string{
	`{}`, `[]`, `null`, `1`, `"s"`, `{"a":1,"b":[1,2,{"c":null}],"a":true}`,
	` { "k" : "v" , "l" : [ ] } `, `{"a\u0062":"\ud800x","é":"\xff"}`,
	`{"n":1e400,"m":-0,"o":[-1e-400,0.1,12345678901234567890]}`, `[1e309]`, `-0`,
	`{"x":{"y":{"z":[[],{}]}}}`, `{"a":"<&>\u2028"}`, `[null,true,false,"",0]`,
}

// sameAny compares two decoded values exactly: maps, slices (nil versus
// empty counts), float bits (so -0 and 0 differ) and strings.
func sameAny(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, found := y[k]
			if !found || !sameAny(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameAny(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return a == b
}

// FuzzStructFloat holds StructFloat to json.Unmarshal into a nil map on
// every valid input, floats compared bit for bit.
func FuzzStructFloat(f *testing.F) {
	for _, s := range geminiHelperSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var want map[string]any
		err := json.Unmarshal(b, &want)
		got, ok := StructFloat(b)
		if ok != (err == nil && want != nil) || ok && !sameAny(got, want) {
			t.Fatalf("StructFloat(%q) = %#v %v; json.Unmarshal = %#v %v", b, got, ok, want, err)
		}
	})
}

// canonical renders a valid value through ParseObject and ParseArray:
// members with unescaped keys, elements, and scalars as sent.
func canonical(v []byte) string {
	v = Trim(v)
	switch {
	case len(v) > 0 && v[0] == '{':
		obj, _ := ParseObject(v)
		var b strings.Builder
		b.WriteString("{")
		for _, f := range obj {
			fmt.Fprintf(&b, "%q:%s;", f.Key, canonical(f.Value))
		}
		return b.String() + "}"
	case len(v) > 0 && v[0] == '[':
		arr, _ := ParseArray(v)
		var b strings.Builder
		b.WriteString("[")
		for _, e := range arr {
			b.WriteString(canonical(e) + ";")
		}
		return b.String() + "]"
	}
	return string(v)
}

// cursorCanonical renders the next value the way canonical does, reading
// it with the Cursor: it descends into containers or takes their span
// whole, alternately, so both ways of moving on are exercised.
func cursorCanonical(t *testing.T, c *Cursor, descend bool) string {
	switch c.Peek() {
	case '{':
		if !descend {
			return canonical(c.Value())
		}
		c.Enter('{')
		var b strings.Builder
		b.WriteString("{")
		for {
			raw, ok := c.NextMember()
			if !ok {
				break
			}
			key := String([]byte(`"` + string(raw) + `"`))
			if PlainKey(raw) && string(raw) != key {
				t.Fatalf("PlainKey(%q) but it unescapes to %q", raw, key)
			}
			fmt.Fprintf(&b, "%q:%s;", key, cursorCanonical(t, c, !descend))
		}
		return b.String() + "}"
	case '[':
		if !descend {
			return canonical(c.Value())
		}
		n := c.CountElements()
		c.Enter('[')
		var b strings.Builder
		b.WriteString("[")
		got := 0
		for c.NextElement() {
			b.WriteString(cursorCanonical(t, c, !descend) + ";")
			got++
		}
		if got != n {
			t.Fatalf("CountElements = %d, the walk found %d", n, got)
		}
		return b.String() + "]"
	}
	return string(c.Value())
}

// FuzzCursor holds the Cursor to ParseObject and ParseArray: descending
// and skipping give the same members, elements and spans.
func FuzzCursor(f *testing.F) {
	for _, s := range geminiHelperSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		want := canonical(b)
		for _, descend := range []bool{true, false} {
			c := NewCursor(b)
			if got := cursorCanonical(t, c, descend); got != want {
				t.Fatalf("Cursor(%q, descend=%v) = %s, want %s", b, descend, got, want)
			}
			if c.Peek() != 0 {
				t.Fatalf("Cursor(%q) stopped before the end", b)
			}
		}
	})
}

// FuzzMembersElements holds the iterators to ParseObject and ParseArray.
func FuzzMembersElements(f *testing.F) {
	for _, s := range geminiHelperSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		obj, isObj := ParseObject(b)
		it, ok := ObjectMembers(b)
		if ok != (isObj && obj != nil) {
			t.Fatalf("ObjectMembers(%q) ok=%v, ParseObject %v %v", b, ok, obj, isObj)
		}
		n := 0
		for ok {
			raw, v, more := it.Next()
			if !more {
				break
			}
			if n >= len(obj) {
				t.Fatalf("ObjectMembers(%q) has more members than ParseObject", b)
			}
			key := String([]byte(`"` + string(raw) + `"`))
			if key != obj[n].Key || !bytes.Equal(v, obj[n].Value) {
				t.Fatalf("ObjectMembers(%q)[%d] = %q %q, want %q %q", b, n, key, v, obj[n].Key, obj[n].Value)
			}
			n++
		}
		if ok && n != len(obj) {
			t.Fatalf("ObjectMembers(%q) gave %d members, want %d", b, n, len(obj))
		}
		arr, isArr := ParseArray(b)
		el, ok := ArrayElements(b)
		if ok != (isArr && arr != nil) {
			t.Fatalf("ArrayElements(%q) ok=%v, ParseArray %v %v", b, ok, arr, isArr)
		}
		if !ok {
			return
		}
		if el.Len() != len(arr) {
			t.Fatalf("Elements(%q).Len() = %d, want %d", b, el.Len(), len(arr))
		}
		for i := 0; ; i++ {
			v, more := el.Next()
			if !more {
				if i != len(arr) {
					t.Fatalf("ArrayElements(%q) gave %d, want %d", b, i, len(arr))
				}
				break
			}
			if i >= len(arr) || !bytes.Equal(v, arr[i]) {
				t.Fatalf("ArrayElements(%q)[%d] = %q", b, i, v)
			}
		}
	})
}

// FuzzAppendJSON holds AppendJSON to json.Marshal on values decoded
// from the input (as function arguments are built), with extra kinds mixed in.
func FuzzAppendJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1e21,1e-7,-0,0.1,123456789,1e300,"<&>\u2028"],"c":{"z":null,"y":true}}`, `[]`, `"x"`, `{}`, `[[[[[[1]]]]]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		for _, w := range []any{v, map[string]any{"v": v, "i": 7, "n": json.Number("1.50"), "s": []string{"a"}, "nil": map[string]any(nil), "l": []any(nil)}} {
			want, err := json.Marshal(w)
			got, ok := AppendJSON(nil, w)
			if ok != (err == nil) || ok && string(got) != string(want) {
				t.Fatalf("AppendJSON(%#v) = %s %v, json.Marshal = %s %v", w, got, ok, want, err)
			}
		}
	})
}

// TestAppendJSONFailsWhereMarshalFails covers what cannot be encoded: a
// NaN, an infinity, a cycle, an unsupported type.
func TestAppendJSONFailsWhereMarshalFails(t *testing.T) {
	cycle := map[string]any{}
	cycle["self"] = cycle
	deep := any("x")
	for range 3 * maxHandDepth {
		deep = []any{deep}
	}
	for _, v := range []any{math.NaN(), math.Inf(-1), map[string]any{"a": []any{math.Inf(1)}}, cycle, make(chan int), map[string]any{"f": func() {}}, deep} {
		want, err := json.Marshal(v)
		got, ok := AppendJSON(nil, v)
		if ok != (err == nil) || ok && string(got) != string(want) {
			t.Errorf("AppendJSON(%T) = %v, json.Marshal error %v", v, ok, err)
		}
	}
}

// FuzzAppendString holds AppendString to json.Marshal of a string.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>\"\\\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029é日本😀", "\xff\xe2\x80\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendString(%q) = %s, want %s", s, got[1:], want)
		}
	})
}

func ExampleStructFloat() {
	fmt.Println(StructFloat([]byte(`{"n":1e400}`)))
	fmt.Println(StructFloat([]byte(`{"m":[1,"x"],"n":1e300}`)))
	// Output:
	// map[] false
	// map[m:[1 x] n:1e+300] true
}

// FuzzAppendCompact holds AppendCompact to json.Marshal of a
// json.RawMessage on every valid JSON text.
func FuzzAppendCompact(f *testing.F) {
	for _, s := range []string{`{}`, ` [ 1 , "a b" , { "c" : null } ] `, "\"<a href=\\\"x\\\">&amp;</a> \u2028\u2029\"", "{\"k<\":\"\xe2\x80\xa8\xe2\x80\"}",
		"\"\\\\\" ", `"\u003c\\<"`, "\"\xe2\x80\xa9\xe2\"", "{\n\t\"a\": [\r\n1]}"} {
		f.Add([]byte(s))
	}
	// Request bodies of every dialect, as the encoders embed fragments of them.
	bodies, _ := filepath.Glob(filepath.Join("..", "..", "benchmarks", "testdata", "*.json"))
	for _, name := range bodies {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("{\"model\":\"o3 <b>&amp;</b>\",\"instructions\":\"be <brief> & \u2028 kind\\u2029\",\"metadata\": {\"k\" : \"<v>\"},\n\"tools\":[{\"type\":\"web_search\", \"note\":\"a > b\"}]}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if !json.Valid(src) {
			return
		}
		want, err := json.Marshal(json.RawMessage(src))
		if err != nil {
			t.Fatal(err)
		}
		orig := string(src)
		prefix := []byte(`{"x":`)
		got := AppendCompact(prefix, src)
		if !bytes.Equal(got[len(prefix):], want) || string(got[:len(prefix)]) != `{"x":` {
			t.Fatalf("AppendCompact(%q) = %q, want %q", src, got[len(prefix):], want)
		}
		if string(src) != orig {
			t.Fatalf("AppendCompact changed its input")
		}
	})
}
