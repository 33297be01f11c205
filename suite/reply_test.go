package suite

import "testing"

func TestParseReply(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"log line\n{\"final_text\": \"hi\"}\n", "hi", true},
		{"{\"final_text\": \"\"}", "", true},
		{"", "", false},
		{"done", "", false},
		{"{\"text\": \"hi\"}", "", false},
	} {
		r, err := parseReply([]byte(tc.in))
		if (err == nil) != tc.ok || r.FinalText != tc.want {
			t.Errorf("parseReply(%q) = %+v, %v", tc.in, r, err)
		}
	}
}
