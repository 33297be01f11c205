// Package shapes finds the generated wire types that are the same type
// under different names, for the wire generators (Anthropic's wiregen and
// Responses' wiregen_test.go): one wire type then stands for identical SDK
// shapes, and a field is edited in one place.
package shapes

import "strconv"

// Classes partitions items into classes of identical declarations.
// decl writes an item's declaration without its own name, naming each
// item it refers to by ref. All items start in one class, and the
// partition is refined until it is stable: every round splits the items by
// their declaration with every referee named by its class of the round
// before, so two items stay together only when everything they reach is
// identical too (recursive types included). The result maps every item to
// its class number.
func Classes[T comparable](items []T, decl func(item T, ref func(T) string) string) map[T]int {
	class := map[T]int{}
	ref := func(t T) string { return "#" + strconv.Itoa(class[t]) }
	for classes := 1; ; {
		keys := map[string]int{}
		next := make(map[T]int, len(items))
		for _, it := range items {
			k := strconv.Itoa(class[it]) + "\n" + decl(it, ref)
			if _, ok := keys[k]; !ok {
				keys[k] = len(keys)
			}
			next[it] = keys[k]
		}
		class = next
		if len(keys) == classes {
			return class
		}
		classes = len(keys)
	}
}

// Canonical maps every item to the one that stands for its class: the
// first of the class in items, unless better (when not nil) prefers a
// later one.
func Canonical[T comparable](items []T, decl func(item T, ref func(T) string) string, better func(a, b T) bool) map[T]T {
	class := Classes(items, decl)
	kept := map[int]T{}
	for _, it := range items {
		if k, ok := kept[class[it]]; !ok || better != nil && better(it, k) {
			kept[class[it]] = it
		}
	}
	canon := make(map[T]T, len(items))
	for _, it := range items {
		canon[it] = kept[class[it]]
	}
	return canon
}
