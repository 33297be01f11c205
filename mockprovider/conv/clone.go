package conv

// CloneValue deep-copies decoded JSON (maps and slices; strings, numbers
// and booleans are values already), keeping nil maps and slices nil so
// the copy encodes exactly as the original. Values shared between
// requests (remembered arguments, cached synthesis) are copied with it
// before a caller that may change them gets them.
func CloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = CloneValue(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = CloneValue(e)
		}
		return out
	}
	return v
}
