package wirejson

import (
	"sync/atomic"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

var decodes atomic.Int32

// counted counts how often it is really decoded.
type counted struct {
	Name string `json:"name"`
}

func (c *counted) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	decodes.Add(1)
	tok, err := dec.ReadToken()
	if err != nil || tok.Kind() != '{' {
		return err
	}
	for dec.PeekKind() == '"' {
		name, _ := dec.ReadToken()
		if name.String() != "name" {
			return &InvalidError{Message: "unknown " + name.String()}
		}
		v, err := dec.ReadToken()
		if err != nil {
			return err
		}
		c.Name = v.String()
	}
	_, err = dec.ReadToken()
	return err
}

type memoBody struct {
	Model string    `json:"model"`
	Tools []counted `json:"tools"`
}

func TestMemoDecodesRepeatedBytesOnce(t *testing.T) {
	var memo Memo[[]counted]
	decodes.Store(0)
	for i, body := range []string{
		`{"model":"a","tools":[{"name":"x"},{"name":"y"}]}`,
		`{"model":"b", "tools": [{"name":"x"},{"name":"y"}]}`,
	} {
		var b memoBody
		if _, err := Decode([]byte(body), &b, Options{Memo: &memo}); err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		if len(b.Tools) != 2 || b.Tools[1].Name != "y" {
			t.Fatalf("body %d decoded to %+v", i, b)
		}
	}
	if n := decodes.Load(); n != 2 {
		t.Fatalf("two tools decoded %d times over two requests, want 2 (the second request from the memo)", n)
	}
	var b memoBody
	if _, err := Decode([]byte(`{"tools":[{"name":"z"}]}`), &b, Options{Memo: &memo}); err != nil || b.Tools[0].Name != "z" {
		t.Fatalf("different bytes: %+v, %v", b, err)
	}
}

// named is a second memoized type, for Memos.
type named struct {
	Name string `json:"name"`
}

type conversationBody struct {
	Tools []counted `json:"tools"`
	Items []named   `json:"items"`
}

func TestMemosRouteEachTypeThroughItsMemo(t *testing.T) {
	var tools Memo[[]counted]
	var items Memo[named]
	memos := NewMemos(&tools, &items)
	decodes.Store(0)
	for i, body := range []string{
		`{"tools":[{"name":"x"}],"items":[{"name":"a"},{"name":"b"}]}`,
		`{"tools":[{"name":"x"}],"items":[{"name":"a"},{"name":"b"},{"name":"c"}]}`,
	} {
		var b conversationBody
		if _, err := Decode([]byte(body), &b, Options{Memo: memos}); err != nil {
			t.Fatalf("body %d: %v", i, err)
		}
		if len(b.Items) != 2+i || b.Items[1].Name != "b" {
			t.Fatalf("body %d decoded to %+v", i, b)
		}
	}
	if n := decodes.Load(); n != 1 {
		t.Fatalf("the tool was decoded %d times over two requests, want 1", n)
	}
	if n := items.kept.Len(); n != 3 {
		t.Fatalf("the item memo holds %d items, want a, b and c", n)
	}
	var b conversationBody
	_, err := Decode([]byte(`{"items":[{"name":"a"},{"nom":"b"}]}`), &b, Options{Memo: memos})
	if err == nil || Dotted(err.Path) != "items.1.nom" {
		t.Fatalf("a bad item after a remembered one: %v, want an error at items.1.nom", err)
	}
}

func TestMemoErrorsKeepTheirPlaceInTheBody(t *testing.T) {
	var memo Memo[[]counted]
	body := `{"model":"a","tools":[{"name":"x"},{"nom":"y"}]}`
	var b memoBody
	_, err := Decode([]byte(body), &b, Options{Memo: &memo})
	if err == nil {
		t.Fatal("a bad tool was accepted")
	}
	if got := Dotted(err.Path); got != "tools.1.nom" {
		t.Errorf("path %q, want tools.1.nom (error %v)", got, err)
	}
	if err.Offset < int64(len(`{"model":"a","tools":[{"name":"x"},`)) {
		t.Errorf("offset %d lies before the bad tool", err.Offset)
	}
	// Failures are not remembered: the same bytes fail again.
	if _, err := Decode([]byte(body), &b, Options{Memo: &memo}); err == nil {
		t.Fatal("the bad tool was accepted the second time")
	}
}

func TestMemoKeepsOnlyStrictSuccesses(t *testing.T) {
	var memo Memo[[]counted]
	decodes.Store(0)
	body := []byte(`{"tools":[{"name":"x"}]}`)
	for range 2 {
		var b memoBody
		if _, err := Decode(body, &b, Options{Lenient: true, Memo: &memo}); err != nil {
			t.Fatal(err)
		}
	}
	// Each lenient request decodes the tool twice (once more to list
	// unknown members); none of them comes from the memo.
	if n := decodes.Load(); n != 4 {
		t.Fatalf("lenient decodes were remembered: %d decodes, want 4", n)
	}
}

func TestMemoIsBounded(t *testing.T) {
	var memo Memo[[]counted]
	memo.kept.MaxBytes = 256
	for i := range 100 {
		body := []byte(`{"tools":[{"name":"tool` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `"}]}`)
		var b memoBody
		if _, err := Decode(body, &b, Options{Memo: &memo}); err != nil {
			t.Fatal(err)
		}
	}
	// Each tools value is 19 bytes: 256 bytes of them is 13.
	if n := memo.kept.Len(); n > 256/19 {
		t.Fatalf("memo holds %d values, bound 256 bytes (13 of these)", n)
	}
}

// TestTypeTag: the fast paths agree with the tokenizer on every layout,
// and never take a nested object's or a string's "type".
func TestTypeTag(t *testing.T) {
	for _, c := range []struct {
		raw, want string
		ok        bool
	}{
		{`{"type":"text","text":"x"}`, "text", true},
		{`{"content":"hi","role":"user","type":"message"}`, "message", true},
		{`{"content":[{"type":"input_text","text":"hi"}],"role":"user"}`, "", false},
		{`{"a":{"b":1,"type":"inner"}}`, "", false},
		{`{"a":{"type":"inner"},"type":"outer"}`, "outer", true},
		{`{"text":"say ,\"type\":\"x\"","type":"t"}`, "t", true},
		{`{"text":",\"type\":\"x\"}"}`, "", false},
		{`{ "type" : "spaced" }`, "spaced", true},
		{`{"type":"esc\u0061ped"}`, "escaped", true},
		{`{"type":1}`, "", false},
	} {
		got, ok := TypeTag([]byte(c.raw))
		if ok != c.ok || string(got) != c.want {
			t.Errorf("TypeTag(%s) = %q, %v; want %q, %v", c.raw, got, ok, c.want, c.ok)
		}
		if sm, smOK := StringMember([]byte(c.raw), "type"); smOK != ok || string(sm) != string(got) {
			t.Errorf("TypeTag(%s) = %q, %v but the tokenizer reads %q, %v", c.raw, got, ok, sm, smOK)
		}
	}
}

// TestMemoAnswersTheFaultDecodingWouldAnswer: a value the memo does not
// know is decoded in place, so a body with several faults gets the same
// error with the memos as without them (a read-whole-first memo answered
// a later syntax error before an earlier wrong type).
func TestMemoAnswersTheFaultDecodingWouldAnswer(t *testing.T) {
	for _, body := range []string{
		`{"items":[{"name":1,"x":}]}`,
		`{"items":[{"name":"a"},{"name":true,"name":"b"}]}`,
		`{"tools":[0`,
		`{"tools":[{"name":"x"}],"items":[{"name":"a"},{"nom":1,`,
		`{"items":[{"name":"\xff"}]}`,
		`{"items":{"name":"a"}}`,
		`{"items":[null,{"name":"a"}]}`,
	} {
		var plain, memoized conversationBody
		_, want := Decode([]byte(body), &plain, Options{})
		var tools Memo[[]counted]
		var items Memo[named]
		memos := NewMemos(&tools, &items)
		for round := range 2 { // cold, then warm for what decoded
			_, got := Decode([]byte(body), &memoized, Options{Memo: memos})
			if (want == nil) != (got == nil) || want != nil && (want.Kind != got.Kind || Dotted(want.Path) != Dotted(got.Path) || want.Offset != got.Offset) {
				t.Errorf("%s (round %d): with memos %v, without %v", body, round, got, want)
			}
		}
	}
}
