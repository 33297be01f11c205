package refdriver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// The request-body edits the mistakes tables are written with. A path
// is a gjson/sjson path; in a pattern, "#" stands for every index of an
// array. An edit that does not apply leaves the body as it is.

// Chain applies edits in order.
func Chain(edits ...func([]byte) []byte) func([]byte) []byte {
	return func(body []byte) []byte {
		for _, e := range edits {
			body = e(body)
		}
		return body
	}
}

// SetKeys sets members (in sorted order, so runs repeat).
func SetKeys(kv map[string]any) func([]byte) []byte {
	return func(body []byte) []byte {
		keys := make([]string, 0, len(kv))
		for k := range kv {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if out, err := sjson.SetBytes(body, k, kv[k]); err == nil {
				body = out
			}
		}
		return body
	}
}

// DeleteKey deletes the member at key.
func DeleteKey(key string) func([]byte) []byte {
	return func(body []byte) []byte {
		out, err := sjson.DeleteBytes(body, key)
		if err != nil {
			return body
		}
		return out
	}
}

// DeletePaths deletes every value at pattern.
func DeletePaths(pattern string) func([]byte) []byte {
	return func(body []byte) []byte {
		paths := Expand(body, pattern)
		// Last first, so earlier indexes stay valid.
		for i := len(paths) - 1; i >= 0; i-- {
			if gjson.GetBytes(body, paths[i]).Exists() {
				body, _ = sjson.DeleteBytes(body, paths[i])
			}
		}
		return body
	}
}

// EachPath rewrites every value found at the patterns for which repl
// says ok, with repl's raw JSON.
func EachPath(patterns []string, repl func(gjson.Result) (string, bool)) func([]byte) []byte {
	return func(body []byte) []byte {
		for _, p := range patterns {
			for _, path := range Expand(body, p) {
				v := gjson.GetBytes(body, path)
				if !v.Exists() {
					continue
				}
				if raw, ok := repl(v); ok {
					if out, err := sjson.SetRawBytes(body, path, []byte(raw)); err == nil {
						body = out
					}
				}
			}
		}
		return body
	}
}

// MapArray replaces each element of the array at key by the raw JSON
// elements f returns for it (none, itself, or several).
func MapArray(key string, f func(gjson.Result) []string) func([]byte) []byte {
	return func(body []byte) []byte {
		arr := gjson.GetBytes(body, key)
		if !arr.IsArray() {
			return body
		}
		var items []string
		for _, el := range arr.Array() {
			items = append(items, f(el)...)
		}
		return SetArray(body, key, items)
	}
}

// SetArray replaces the array at key of body by the raw JSON items.
func SetArray(body []byte, key string, items []string) []byte {
	out, err := sjson.SetRawBytes(body, key, []byte(joinRaw(items)))
	if err != nil {
		return body
	}
	return out
}

// SetArrayRaw replaces the array at key of the object raw by the raw
// JSON items.
func SetArrayRaw(raw, key string, items []string) string {
	out, err := sjson.SetRaw(raw, key, joinRaw(items))
	if err != nil {
		return raw
	}
	return out
}

// InsertAfter repeats element i of the array at key of the object raw.
func InsertAfter(raw, key string, elems []gjson.Result, i int) string {
	var items []string
	for k, e := range elems {
		items = append(items, e.Raw)
		if k == i {
			items = append(items, e.Raw)
		}
	}
	return SetArrayRaw(raw, key, items)
}

func joinRaw(items []string) string {
	return "[" + strings.Join(items, ",") + "]"
}

// Expand turns "a.#.b.#.c" into the concrete paths present in body.
func Expand(body []byte, pattern string) []string {
	paths := []string{""}
	for _, seg := range strings.Split(pattern, ".") {
		var next []string
		for _, p := range paths {
			if seg != "#" {
				next = append(next, join(p, seg))
				continue
			}
			n := len(gjson.GetBytes(body, p).Array())
			for i := 0; i < n; i++ {
				next = append(next, join(p, strconv.Itoa(i)))
			}
		}
		paths = next
	}
	return paths
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}
