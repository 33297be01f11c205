package conv

import (
	"reflect"
	"testing"
)

func TestCloneValueCopiesMapsAndSlices(t *testing.T) {
	orig := map[string]any{"a": []any{1.0, map[string]any{"b": "c"}}, "n": map[string]any(nil), "s": []any(nil)}
	c := CloneValue(orig).(map[string]any)
	if !reflect.DeepEqual(c, orig) {
		t.Fatalf("clone %v differs from %v", c, orig)
	}
	c["a"].([]any)[1].(map[string]any)["b"] = "changed"
	c["x"] = 1
	if orig["a"].([]any)[1].(map[string]any)["b"] != "c" || len(orig) != 3 {
		t.Fatalf("changing the clone changed the original: %v", orig)
	}
	if c["n"].(map[string]any) != nil || c["s"].([]any) != nil {
		t.Fatal("nil map or slice not kept nil")
	}
}
