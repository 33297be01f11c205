package wirejson

import (
	"bytes"
	"testing"
)

func TestValueLength(t *testing.T) {
	for in, want := range map[string]int{
		`{}`:                   2,
		`[1,{"a":[]}] tail`:    12,
		`{"a":"}"} tail`:       9,
		`{"a":"\"}"},{}`:       11,
		`{"a":[{"b":"\\"}]}]`:  18,
		`{"a":"b\\\"}"}`:       14,
		`{"a":1`:               0,
		`{"a":"}`:              0,
		`{"a":{"b":{}}, "c":1`: 0,
	} {
		if got := ValueLength([]byte(in)); got != want {
			t.Errorf("ValueLength(%s) = %d, want %d", in, got, want)
		}
	}
}

// TestCountElements: the capacity hint is the element count of whole
// arrays, and stays bounded on anything else.
func TestCountElements(t *testing.T) {
	for in, want := range map[string]int{
		`[]`: 0, ` [ ] `: 0, `[1]`: 1, `[{"a":[1,2,3]},"x,y",{"b":"]"}] trailing`: 3,
		`[ {"s":"a\"],["} , [1,[2]] , null ]`: 3, `[[],[]]`: 2, `["\\",1]`: 2, `[1,2`: 1, `["abc`: 1, `["a\\\"b",{"c":"\\\\"}]`: 2, `"`: 1,
	} {
		if got := CountElements([]byte(in), 128); got != want {
			t.Errorf("CountElements(%s) = %d, want %d", in, got, want)
		}
	}
	if got := CountElements([]byte("["+string(bytes.Repeat([]byte("0,"), 1000))+"0]"), 128); got > 128 {
		t.Errorf("count %d beyond the bound %d", got, 128)
	}
}
