package shapes

import (
	"strings"
	"testing"
)

// A small type graph: B and C are the same struct under two names; D and E
// refer to them, so they merge too; F refers to itself and G to F, each
// with the same field, so F and G merge; H differs from D by a field.
var graph = map[string]string{
	"A": "x int",
	"B": "y string",
	"C": "y string",
	"D": "b B",
	"E": "b C",
	"F": "next F",
	"G": "next F",
	"H": "b B; z int",
}

func decl(name string, ref func(string) string) string {
	var parts []string
	for _, f := range strings.Split(graph[name], "; ") {
		field, typ, _ := strings.Cut(f, " ")
		if _, isType := graph[typ]; isType {
			typ = ref(typ)
		}
		parts = append(parts, field+" "+typ)
	}
	return strings.Join(parts, "; ")
}

func TestClasses(t *testing.T) {
	items := []string{"A", "B", "C", "D", "E", "F", "G", "H"}
	class := Classes(items, decl)
	same := func(a, b string) bool { return class[a] == class[b] }
	for _, p := range [][2]string{{"B", "C"}, {"D", "E"}, {"F", "G"}} {
		if !same(p[0], p[1]) {
			t.Errorf("%s and %s are the same shape but in classes %d and %d", p[0], p[1], class[p[0]], class[p[1]])
		}
	}
	for _, p := range [][2]string{{"A", "B"}, {"D", "H"}, {"B", "D"}, {"A", "F"}} {
		if same(p[0], p[1]) {
			t.Errorf("%s and %s differ but share class %d", p[0], p[1], class[p[0]])
		}
	}
	if len(class) != len(items) {
		t.Errorf("%d items classed, want %d", len(class), len(items))
	}
}

func TestCanonical(t *testing.T) {
	items := []string{"A", "C", "B", "D", "E", "G", "F", "H"}
	first := Canonical(items, decl, nil)
	for item, want := range map[string]string{"A": "A", "B": "C", "C": "C", "E": "D", "F": "G", "H": "H"} {
		if first[item] != want {
			t.Errorf("first in order: %s stands for %s, want %s", first[item], item, want)
		}
	}
	least := Canonical(items, decl, func(a, b string) bool { return a < b })
	for item, want := range map[string]string{"B": "B", "C": "B", "E": "D", "G": "F"} {
		if least[item] != want {
			t.Errorf("preferring the least: %s stands for %s, want %s", least[item], item, want)
		}
	}
}
