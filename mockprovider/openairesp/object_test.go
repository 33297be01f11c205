package openairesp

import (
	"encoding/json"
	"testing"
)

// TestObjectEncodes: an object keeps its fields' order, nested included.
func TestObjectEncodes(t *testing.T) {
	o := object{{"a", 1}, {"b", []any{true, nil, "x", object{{"n", int64(5)}}}}, {"c", []object{{{"k", "v"}}}}, {"d", json.RawMessage(`{"raw":[1,2]}`)}, {"e", 1.5}, {"f", map[string]int{"z": 1}}}
	got, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":1,"b":[true,null,"x",{"n":5}],"c":[{"k":"v"}],"d":{"raw":[1,2]},"e":1.5,"f":{"z":1}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
