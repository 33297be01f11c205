package openairesp

import (
	"encoding/json"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/internal/jsonscan"
)

// The single-pass encoder must produce exactly what encoding/json does.
func TestObjectEncodesLikeEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "ctl \x01\x1f", "<html> & </html>",
		"ünïcødé 東京 🌍", "bad utf8 \xff\xfe end", "sep \u2028 \u2029", `{"json":"in a string"}`}
	for _, s := range strs {
		want, _ := json.Marshal(s)
		if got := jsonscan.AppendString(nil, s); string(got) != string(want) {
			t.Errorf("jsonscan.AppendString(%q) = %s, want %s", s, got, want)
		}
	}
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

func FuzzAppendString(f *testing.F) {
	f.Add("hello \"world\" \n <tag> \u2028 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := jsonscan.AppendString(nil, s); string(got) != string(want) {
			t.Fatalf("jsonscan.AppendString(%q) = %s, want %s", s, got, want)
		}
	})
}
