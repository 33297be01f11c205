package bedrock

import (
	"regexp"
	"strings"
	"testing"
)

// toolUseIDPattern is the documented toolUseId pattern validToolUseID
// implements.
var toolUseIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_.:-]{1,64}$`)

func TestValidToolUseID(t *testing.T) {
	for _, id := range []string{"", "a", "tooluse_01", "call/1", "a b", "é", "\xff", "x.y:z-_9", strings.Repeat("a", 64), strings.Repeat("a", 65), "a\n"} {
		if got, want := validToolUseID(id), toolUseIDPattern.MatchString(id); got != want {
			t.Errorf("validToolUseID(%q) = %v, the pattern says %v", id, got, want)
		}
	}
}

func FuzzValidToolUseID(f *testing.F) {
	f.Add("tooluse_01")
	f.Add("call/1")
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := validToolUseID(id), toolUseIDPattern.MatchString(id); got != want {
			t.Fatalf("validToolUseID(%q) = %v, the pattern says %v", id, got, want)
		}
	})
}
