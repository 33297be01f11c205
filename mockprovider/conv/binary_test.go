package conv

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// fill sets every field reachable from v to a non-zero value, so a field
// added to the model but forgotten by the binary codec fails the round
// trip below.
func fill(v reflect.Value, seed *int) {
	*seed++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d-\u00e9\x00", *seed))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(*seed))
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed)
			}
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage
			v.SetBytes([]byte(fmt.Sprintf(`{"n":%d}`, *seed)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), seed)
		}
		v.Set(s)
	case reflect.Map: // map[string]any: every kind of JSON value
		v.Set(reflect.ValueOf(map[string]any{
			"null": nil, "t": true, "f": false, "float": 1.5, "neg0": math.Copysign(0, -1),
			"big": 1e300, "number": json.Number("12345678901234567890"), "str": "x\"y",
			"arr": []any{1.0, "a", nil, []any{}, map[string]any{}}, "nilarr": []any(nil),
			"obj": map[string]any{"deep": map[string]any{"k": []any{true}}}, "nilobj": map[string]any(nil),
			"seed": float64(*seed),
		}))
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func roundTrip(t *testing.T, c *Conversation) {
	t.Helper()
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back Conversation
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !reflect.DeepEqual(c, &back) {
		want, _ := json.Marshal(c)
		got, _ := json.Marshal(&back)
		t.Fatalf("round trip differs\nwant %s\n got %s", want, got)
	}
}

func TestBinaryRoundTripEveryField(t *testing.T) {
	var c Conversation
	seed := 0
	fill(reflect.ValueOf(&c).Elem(), &seed)
	if c.Turns[1].Parts[1].Call == nil || c.Turns[0].Parts[0].Result.Structured == nil {
		t.Fatal("fill left pointers unset")
	}
	roundTrip(t, &c)
}

func TestBinaryRoundTripKeepsNilApartFromEmpty(t *testing.T) {
	roundTrip(t, &Conversation{})
	roundTrip(t, &Conversation{Tools: []Tool{{Parameters: json.RawMessage{}}}, Turns: []Turn{{Parts: []Part{}}}})
	roundTrip(t, &Conversation{Turns: []Turn{{Role: User, Parts: []Part{{Kind: KindResult, Result: &Result{Content: []Content{}, Structured: map[string]any{}}}}}}})
	roundTrip(t, &Conversation{Turns: []Turn{{Role: Assistant, Parts: []Part{{Kind: KindCall, Call: &Call{Arguments: map[string]any{}}}}}}})
}

func TestBinaryRoundTripOfOtherValuesGoesThroughJSON(t *testing.T) {
	c := &Conversation{Turns: []Turn{{Parts: []Part{{Call: &Call{Arguments: map[string]any{"n": 3}}}}}}}
	b, _ := c.MarshalBinary()
	var back Conversation
	if err := back.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if got := back.Turns[0].Parts[0].Call.Arguments["n"]; got != 3.0 {
		t.Fatalf("int argument came back as %#v, want 3.0", got)
	}
}

func TestBinaryRejectsCorruptInput(t *testing.T) {
	var c Conversation
	seed := 0
	fill(reflect.ValueOf(&c).Elem(), &seed)
	b, _ := c.MarshalBinary()
	for _, bad := range [][]byte{nil, {}, {99}, b[:len(b)-1], append(append([]byte{}, b...), 0)} {
		var out Conversation
		if err := out.UnmarshalBinary(bad); err == nil {
			t.Errorf("UnmarshalBinary(%d bytes) accepted corrupt input", len(bad))
		}
	}
	// Deep nesting is refused, not recursed into.
	deep := []byte{binaryVersion, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 0, 1, 0, 0, tagObject, 1, 1, 'k'}
	for range 20000 {
		deep = append(deep, tagArray, 1)
	}
	var out Conversation
	if err := out.UnmarshalBinary(deep); err == nil {
		t.Error("deeply nested input accepted")
	}
}

func FuzzUnmarshalBinary(f *testing.F) {
	var c Conversation
	seed := 0
	fill(reflect.ValueOf(&c).Elem(), &seed)
	b, _ := c.MarshalBinary()
	f.Add(b)
	small, _ := (&Conversation{Model: "m", Turns: []Turn{{Role: User, Parts: []Part{{Kind: KindText, Text: "hi"}}}}}).MarshalBinary()
	f.Add(small)
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Conversation
		if c.UnmarshalBinary(data) != nil {
			return
		}
		// Whatever decodes must survive another round trip unchanged.
		roundTrip(t, &c)
	})
}
