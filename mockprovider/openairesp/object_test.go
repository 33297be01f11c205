package openairesp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// wirejson.AppendString must give a JSON string that reads back as s (invalid
// UTF-8 as replacement characters), and object must nest it correctly.
func TestObjectEncodes(t *testing.T) {
	strs := []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr", "ctl \x01\x1f", "<html> & </html>",
		"ünïcødé 東京 🌍", "bad utf8 \xff\xfe end", "sep \u2028 \u2029", `{"json":"in a string"}`}
	for _, s := range strs {
		var back string
		if err := json.Unmarshal(wirejson.AppendString(nil, s), &back); err != nil || back != strings.ToValidUTF8(s, "\ufffd") {
			t.Errorf("wirejson.AppendString(%q) = %s, reads back as %q (%v)", s, wirejson.AppendString(nil, s), back, err)
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
		var back string
		if err := json.Unmarshal(wirejson.AppendString(nil, s), &back); err != nil || (utf8.ValidString(s) && back != s) {
			t.Fatalf("wirejson.AppendString(%q) = %s reads back as %q (%v)", s, wirejson.AppendString(nil, s), back, err)
		}
	})
}
