package jsonview

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// Focus returns raw as text of at most max bytes that still shows path.
// A body that fits is returned as it is. A longer JSON body is compacted
// and then, until it fits, its largest values are replaced by a string
// saying how many bytes went: first the values off the path (the tool
// schemas of a long request, usually), then those under it; the path's
// own members and its ancestors are never replaced. Keys and array
// positions stay, so the path addresses the same member in the result,
// which is still JSON. A body that is not JSON (a clipped one), or that
// cannot be brought under max, is clipped as text.
func Focus(raw []byte, path string, max int) string {
	if len(raw) <= max {
		return string(raw)
	}
	if jsontext.Value(raw).IsValid() {
		if root, err := parse(jsontext.Value(raw), nil, nil); err == nil {
			if root.shrink(SplitPath(path), max) {
				var b bytes.Buffer
				root.write(&b)
				return b.String()
			}
		}
	}
	return clip(raw, max)
}

// clip cuts text the way the suite's excerpts always have.
func clip(raw []byte, max int) string {
	return string(raw[:max]) + "…(" + strconv.Itoa(len(raw)-max) + " more bytes)"
}

// node is one value of a parsed body.
type node struct {
	scalar []byte // a string, number, literal: its bytes as sent
	object bool
	keys   []string
	kids   []*node
	parent *node
	path   []string
	size   int    // bytes of the compact encoding
	elided []byte // the placeholder written instead, once replaced
}

func parse(v jsontext.Value, parent *node, path []string) (*node, error) {
	n := &node{parent: parent, path: path}
	switch v.Kind() {
	case '{', '[':
		members, err := split(v)
		if err != nil {
			return nil, err
		}
		n.object = v.Kind() == '{'
		n.kids = []*node{} // an empty container is not a scalar
		n.size = 2 + max(len(members)-1, 0)
		for _, m := range members {
			kid, err := parse(m.val, n, append(path[:len(path):len(path)], m.tok))
			if err != nil {
				return nil, err
			}
			if n.object {
				n.keys = append(n.keys, m.tok)
				n.size += len(quote(m.tok)) + 1
			}
			n.kids = append(n.kids, kid)
			n.size += kid.size
		}
	default:
		n.scalar = bytes.TrimSpace(v)
		n.size = len(n.scalar)
	}
	return n, nil
}

// shrink replaces values, largest first, until the body fits in max
// bytes; it reports whether it does.
func (root *node) shrink(target []string, max int) bool {
	total := root.size
	var off, under []*node
	var walk func(n *node)
	walk = func(n *node) {
		for _, k := range n.kids {
			switch {
			case Within(k.path, target) && len(k.path) > len(target):
				under = append(under, k)
			case !Within(target, k.path): // not the path's own member nor an ancestor
				off = append(off, k)
			}
			walk(k)
		}
	}
	walk(root)
	for _, phase := range [][]*node{off, under} {
		slices.SortStableFunc(phase, func(a, b *node) int { return b.size - a.size })
		for _, n := range phase {
			if total <= max {
				return true
			}
			if n.hasElidedAncestor() {
				continue
			}
			ph := quote(fmt.Sprintf("…(%d bytes elided)", n.size))
			if len(ph) >= n.size {
				continue
			}
			n.elided = ph
			total -= n.size - len(ph)
		}
	}
	return total <= max
}

func (n *node) hasElidedAncestor() bool {
	for p := n.parent; p != nil; p = p.parent {
		if p.elided != nil {
			return true
		}
	}
	return false
}

func (n *node) write(b *bytes.Buffer) {
	switch {
	case n.elided != nil:
		b.Write(n.elided)
	case n.kids == nil:
		b.Write(n.scalar)
	default:
		open, closing := byte('['), byte(']')
		if n.object {
			open, closing = '{', '}'
		}
		b.WriteByte(open)
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.object {
				b.Write(quote(n.keys[i]))
				b.WriteByte(':')
			}
			k.write(b)
		}
		b.WriteByte(closing)
	}
}
