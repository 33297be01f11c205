package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/internal/localschema"
)

// Synthesize makes arguments that validate against a tool's JSON Schema:
// every required property, honouring const, enum, default, examples, type,
// format, length and range bounds, local $refs and combinators. A schema it
// cannot read yields {}. Each call builds fresh arguments, the caller's to
// change.
func Synthesize(schema json.RawMessage) map[string]any {
	args, _, _ := SynthesizeContext(context.Background(), schema)
	return args
}

// SynthesizeContext is Synthesize with the request's context: synthesis
// stops (returning ctx.Err()) when the client is gone. notes say where a
// bound of the schema was above what synthesis builds (see the Max*
// constants): the arguments then stop at the bound — answered and
// journaled rather than refused, since no real provider refuses a tool
// schema for a large minLength.
func SynthesizeContext(ctx context.Context, schema json.RawMessage) (args map[string]any, notes []string, err error) {
	args, notes, _, err = synthesize(ctx, schema)
	return args, notes, err
}

// SynthesizeValueContext builds a value of any type valid against schema
// (a structured output's schema need not describe an object); a schema it
// cannot read yields {}.
func SynthesizeValueContext(ctx context.Context, schema json.RawMessage) (value any, notes []string, err error) {
	var root map[string]any
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return map[string]any{}, nil, nil
	}
	s := &synth{root: root, ctx: ctx, budget: MaxSynthBytes, schemaLen: len(schema)}
	v := s.value(root, "", 0)
	if s.cancelled {
		return nil, nil, ctx.Err()
	}
	return v, s.notes, nil
}

// What synthesis builds at most, however large a schema's bounds: a
// schema of a few hundred bytes must not make the mock build megabytes.
const (
	// MaxSynthString is the longest synthesized string, in characters.
	MaxSynthString = 64 << 10
	// MaxSynthItems is the most items of one array, or properties of one
	// object, synthesis adds to meet minItems or minProperties.
	MaxSynthItems = 10000
	// MaxSynthBytes is roughly the most one tool's arguments may weigh,
	// as JSON; past it arrays and objects stop growing.
	MaxSynthBytes = 1 << 20
	// maxOneOfChecks bounds the validations oneOf disambiguation runs per
	// synthesis, and maxOneOfBytes the schema bytes they compile together
	// (each check compiles the whole document, at some tens of
	// microseconds a subschema); past either the first alternative is
	// taken.
	maxOneOfChecks = 64
	maxOneOfBytes  = 256 << 10
)

// synthesize is SynthesizeContext without the cache. cost is the estimated
// size of the arguments.
func synthesize(ctx context.Context, schema json.RawMessage) (args map[string]any, notes []string, cost int, err error) {
	var root map[string]any
	if len(schema) == 0 || json.Unmarshal(schema, &root) != nil {
		return map[string]any{}, nil, 0, nil
	}
	s := &synth{root: root, ctx: ctx, budget: MaxSynthBytes, schemaLen: len(schema)}
	v, ok := s.value(root, "", 0).(map[string]any)
	if s.cancelled {
		return nil, nil, 0, ctx.Err()
	}
	if !ok {
		v = map[string]any{}
	}
	return v, s.notes, MaxSynthBytes - s.budget, nil
}

// synth is one synthesis: the schema document, the request's context, what
// is left of the size budget and the notes so far.
type synth struct {
	root      map[string]any
	ctx       context.Context
	budget    int // estimated bytes still allowed (MaxSynthBytes at the start)
	steps     int
	cancelled bool
	oneOfs    int
	schemaLen int
	notes     []string
}

// note records a departure from the schema once.
func (s *synth) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(s.notes, n) && len(s.notes) < 16 {
		s.notes = append(s.notes, n)
	}
}

const budgetNote = "the arguments reached toolwire's synthesis budget (%d bytes): beyond it arrays and objects stop growing, strings are shorter than their minLength and other values are null"

// spend charges n bytes to the budget and reports whether any is left.
func (s *synth) spend(n int) bool {
	s.budget -= n
	if s.budget < 0 {
		s.note(budgetNote, MaxSynthBytes)
		return false
	}
	return true
}

// given is a value the schema spells out (const, enum, default, example),
// charged its size: one $ref to a large const, repeated, is as heavy as
// the strings synthesis builds.
func (s *synth) given(v any) any {
	switch v.(type) {
	case map[string]any, []any, string:
		b, _ := json.Marshal(v)
		s.spend(len(b))
	}
	return v
}

// stopped reports whether synthesis must end: the request's context is
// done (checked every few hundred steps).
func (s *synth) stopped() bool {
	if s.cancelled {
		return true
	}
	s.steps++
	if s.steps&255 == 0 && s.ctx.Err() != nil {
		s.cancelled = true
	}
	return s.cancelled
}

const maxDepth = 12

func (s *synth) value(sch map[string]any, name string, depth int) any {
	// Past the budget every value is null: the arguments stop growing
	// however many required properties or $refs remain.
	if depth > maxDepth || s.stopped() || !s.spend(8) {
		return nil
	}
	if ref, ok := sch["$ref"].(string); ok {
		if target := s.resolve(ref); target != nil {
			return s.value(target, name, depth+1)
		}
	}
	if v, ok := sch["const"]; ok {
		return s.given(v)
	}
	if e, ok := sch["enum"].([]any); ok && len(e) > 0 {
		return s.given(e[0])
	}
	if v, ok := sch["default"]; ok {
		return s.given(v)
	}
	if ex, ok := sch["examples"].([]any); ok && len(ex) > 0 {
		return s.given(ex[0])
	}
	if v, ok := sch["example"]; ok {
		return s.given(v)
	}
	if alts, ok := sch["anyOf"].([]any); ok {
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && typeOf(m) != "null" {
				return s.value(merge(sch, m, "anyOf"), name, depth+1)
			}
		}
	}
	if alts, ok := sch["oneOf"].([]any); ok {
		return s.oneOf(sch, alts, name, depth)
	}
	if all, ok := sch["allOf"].([]any); ok {
		merged := merge(sch, nil, "allOf")
		for _, a := range all {
			if m, ok := a.(map[string]any); ok {
				if ref, ok := m["$ref"].(string); ok {
					if t := s.resolve(ref); t != nil {
						m = t
					}
				}
				merged = mergeInto(merged, m)
			}
		}
		return s.value(merged, name, depth+1)
	}
	switch typeOf(sch) {
	case "object":
		return s.object(sch, depth)
	case "array":
		return s.array(sch, name, depth)
	case "integer":
		return s.integer(sch)
	case "number":
		return number(sch)
	case "boolean":
		return true
	case "null":
		return nil
	case "string":
		return s.str(sch, name)
	}
	if _, ok := sch["properties"]; ok {
		return s.object(sch, depth)
	}
	if _, ok := sch["items"]; ok {
		return s.array(sch, name, depth)
	}
	return s.str(sch, name)
}

// oneOf returns the first alternative's value that matches no other
// alternative (an integer 1 matches both {integer} and {number}, so the
// number alternative's 1.5 is taken instead).
func (s *synth) oneOf(sch map[string]any, alts []any, name string, depth int) any {
	var first any
	firstSet := false
	for pass := 0; pass < 2; pass++ {
		for i, a := range alts {
			m, ok := a.(map[string]any)
			// Prefer a non-null alternative; take null ones on the
			// second pass.
			if !ok || (pass == 0) == (typeOf(m) == "null") {
				continue
			}
			v := s.value(merge(sch, m, "oneOf"), name, depth+1)
			if !firstSet {
				first, firstSet = v, true
			}
			if s.oneOfs >= maxOneOfChecks || (s.oneOfs+1)*s.schemaLen > maxOneOfBytes {
				s.note("oneOf beyond toolwire's synthesis bounds (%d checks, %d schema bytes compiled): the first alternative was taken", maxOneOfChecks, maxOneOfBytes)
				return first
			}
			s.oneOfs++
			if s.matchesOnly(alts, i, v) {
				return v
			}
		}
	}
	return first
}

// matchesOnly reports whether v validates against alts[i] and no other
// alternative. The alternatives are compiled inside a copy of the root
// document so their local $refs resolve; anything that does not compile
// counts as a match, so the first candidate wins.
func (s *synth) matchesOnly(alts []any, i int, v any) bool {
	doc := maps.Clone(s.root)
	doc["$toolwire_alternatives"] = alts
	raw, err := json.Marshal(doc)
	if err != nil {
		return true
	}
	val, err := json.Marshal(v)
	if err != nil {
		return true
	}
	rdoc, err1 := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	inst, err2 := jsonschema.UnmarshalJSON(bytes.NewReader(val))
	if err1 != nil || err2 != nil || !localschema.Fits(rdoc) {
		return true
	}
	c := localschema.NewCompiler()
	if c.AddResource(localschema.URL, rdoc) != nil {
		return true
	}
	for j := range alts {
		sch, err := c.Compile(fmt.Sprintf("%s#/$toolwire_alternatives/%d", localschema.URL, j))
		if err != nil {
			return true
		}
		if ok := sch.Validate(inst) == nil; ok != (j == i) {
			return false
		}
	}
	return true
}

func (s *synth) resolve(ref string) map[string]any {
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	var cur any = s.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[tok]
	}
	m, _ := cur.(map[string]any)
	return m
}

// merge copies parent keywords except the combinator into a copy of child.
func merge(parent, child map[string]any, drop string) map[string]any {
	out := map[string]any{}
	for k, v := range parent {
		if k != drop {
			out[k] = v
		}
	}
	return mergeInto(out, child)
}

func mergeInto(dst, src map[string]any) map[string]any {
	for k, v := range src {
		switch k {
		case "properties":
			props, _ := dst["properties"].(map[string]any)
			np := map[string]any{}
			for pk, pv := range props {
				np[pk] = pv
			}
			if sp, ok := v.(map[string]any); ok {
				for pk, pv := range sp {
					np[pk] = pv
				}
			}
			dst["properties"] = np
		case "required":
			req, _ := dst["required"].([]any)
			if sr, ok := v.([]any); ok {
				req = append(append([]any(nil), req...), sr...)
			}
			dst["required"] = req
		default:
			dst[k] = v
		}
	}
	return dst
}

func typeOf(sch map[string]any) string {
	switch t := sch["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			if s, ok := t[0].(string); ok {
				return s
			}
		}
	}
	return ""
}

func (s *synth) object(sch map[string]any, depth int) map[string]any {
	out := map[string]any{}
	props, _ := sch["properties"].(map[string]any)
	req, _ := sch["required"].([]any)
	for _, r := range req {
		name, ok := r.(string)
		if !ok {
			continue
		}
		ps, _ := props[name].(map[string]any)
		if ps == nil {
			ps = map[string]any{}
		}
		out[name] = s.value(ps, name, depth+1)
	}
	// Fill up to minProperties with declared optional properties, then
	// (when allowed) with extra ones.
	minP := intOf(sch["minProperties"], 0)
	if minP > MaxSynthItems {
		s.note("minProperties %d is above toolwire's synthesis bound: the object has at most %d properties", minP, MaxSynthItems)
		minP = MaxSynthItems
	}
	if minP > len(out) {
		for _, name := range sortedKeys(props) {
			if len(out) >= minP || s.budget < 0 || s.stopped() {
				break
			}
			if _, done := out[name]; !done {
				ps, _ := props[name].(map[string]any)
				out[name] = s.value(ps, name, depth+1)
			}
		}
	}
	if ap, ok := sch["additionalProperties"]; (!ok || ap != false) && len(out) < minP {
		extra, _ := ap.(map[string]any)
		// Every extra property has the same value: build it once.
		var v any = "value"
		cost := len(`"value"`)
		if extra != nil {
			before := s.budget
			v = s.value(extra, "extra", depth+1)
			cost = max(before-s.budget, 8)
		}
		for i := 1; len(out) < minP && s.spend(cost+16) && !s.stopped(); i++ {
			out["extra_"+strconv.Itoa(i)] = conv.CloneValue(v)
		}
	}
	// dependentRequired: a present property brings its dependents.
	if dep, ok := sch["dependentRequired"].(map[string]any); ok {
		for _, k := range sortedKeys(dep) {
			if _, present := out[k]; !present {
				continue
			}
			list, _ := dep[k].([]any)
			for _, d := range list {
				if name, ok := d.(string); ok {
					if _, done := out[name]; !done {
						ps, _ := props[name].(map[string]any)
						out[name] = s.value(ps, name, depth+1)
					}
				}
			}
		}
	}
	return out
}

func (s *synth) array(sch map[string]any, name string, depth int) []any {
	n := intOf(sch["minItems"], 1)
	if max := intOf(sch["maxItems"], -1); max >= 0 && n > max {
		n = max
	}
	if n > MaxSynthItems {
		s.note("minItems %d is above toolwire's synthesis bound: the array has at most %d items", n, MaxSynthItems)
		n = MaxSynthItems
	}
	n = max(n, 0)
	out := make([]any, 0, min(n, 64))
	if prefix, ok := sch["prefixItems"].([]any); ok {
		for _, p := range prefix {
			if len(out) >= n {
				break
			}
			if m, ok := p.(map[string]any); ok {
				out = append(out, s.value(m, name, depth+1))
			}
		}
	}
	item, _ := sch["items"].(map[string]any)
	if ref, ok := item["$ref"].(string); ok {
		if t := s.resolve(ref); t != nil {
			item = t
		}
	}
	if c, ok := sch["contains"].(map[string]any); ok && len(out) == 0 && n > 0 {
		out = append(out, s.value(c, name, depth+1))
	}
	unique, _ := sch["uniqueItems"].(bool)
	if len(out) >= n {
		return out
	}
	// Synthesis is deterministic, so every item starts from one value,
	// built once: the array costs its length, not its length times the
	// item's schema.
	var v any
	cost := 16
	if item != nil {
		before := s.budget
		v = s.value(item, name, depth+1)
		cost = max(before-s.budget, 8)
	}
	var re *regexp.Regexp
	if p, ok := item["pattern"].(string); ok && unique {
		re, _ = regexp.Compile(p)
	}
	for i, built := len(out), false; len(out) < n; i, built = i+1, true {
		// The first copy was paid for while it was built.
		if built && !s.spend(cost) || s.stopped() {
			break
		}
		if item == nil {
			out = append(out, "item"+strconv.Itoa(i+1))
			continue
		}
		x := conv.CloneValue(v)
		if unique && i > 0 {
			x = variant(item, x, i, re)
		}
		out = append(out, x)
	}
	return out
}

// variant makes the i-th item of a uniqueItems array differ from the
// first while staying valid: the i-th enum member, the other boolean, the
// next multiple, or a numbered string. re is the item's compiled pattern,
// if any.
func variant(item map[string]any, v any, i int, re *regexp.Regexp) any {
	if e, ok := item["enum"].([]any); ok && len(e) > 0 {
		return e[i%len(e)]
	}
	if _, ok := item["const"]; ok {
		return v
	}
	switch x := v.(type) {
	case bool:
		return i%2 == 0
	case int64:
		step := int64(1)
		if m, ok := numOf(item["multipleOf"]); ok && m >= 1 && m == math.Trunc(m) {
			step = int64(m)
		}
		_, _, _, hi, hiX, hasHi := bounds(item)
		if next := x + step*int64(i); !hasHi || float64(next) < hi || (!hiX && float64(next) == hi) {
			return next
		}
		return x - step*int64(i)
	case float64:
		step := 1.0
		if m, ok := numOf(item["multipleOf"]); ok && m > 0 {
			step = m
		}
		d := denominator(step)
		_, _, _, hi, hiX, hasHi := bounds(item)
		next := math.Round((x+step*float64(i))*d) / d
		if !hasHi || next < hi || (!hiX && next == hi) {
			return next
		}
		return math.Round((x-step*float64(i))*d) / d
	case string:
		if _, ok := item["format"]; ok {
			return x
		}
		cand := fmt.Sprintf("%s%d", x, i)
		if maxL := intOf(item["maxLength"], -1); maxL >= 0 && utf8.RuneCountInString(cand) > maxL {
			r := []rune(x)
			if len(r) > 0 {
				r[len(r)-1] = rune('a' + i%26)
			}
			cand = string(r)
		}
		if _, ok := item["pattern"].(string); ok {
			if re == nil || !re.MatchString(cand) {
				return x
			}
		}
		return cand
	case map[string]any:
		// Objects differ when an optional string property does; else
		// they stay equal (a schema that forbids both is unsatisfiable
		// by a default generator).
		props, _ := item["properties"].(map[string]any)
		for _, k := range sortedKeys(props) {
			ps, _ := props[k].(map[string]any)
			if typeOf(ps) == "string" && ps["enum"] == nil && ps["const"] == nil && ps["format"] == nil && ps["pattern"] == nil {
				cp := maps.Clone(x)
				cp[k] = fmt.Sprintf("%s %d", k, i)
				return cp
			}
		}
	}
	return v
}

// bounds reads minimum/maximum and their exclusive forms, keeping the
// tighter of each pair.
func bounds(sch map[string]any) (lo float64, loX, hasLo bool, hi float64, hiX, hasHi bool) {
	if x, ok := numOf(sch["minimum"]); ok {
		lo, hasLo = x, true
	}
	if x, ok := numOf(sch["exclusiveMinimum"]); ok && (!hasLo || x >= lo) {
		lo, loX, hasLo = x, true, true
	}
	if x, ok := numOf(sch["maximum"]); ok {
		hi, hasHi = x, true
	}
	if x, ok := numOf(sch["exclusiveMaximum"]); ok && (!hasHi || x <= hi) {
		hi, hiX, hasHi = x, true, true
	}
	return
}

// integer is 1, or the bound nearest it, made a multiple of multipleOf.
// The arithmetic is exact (big integers from the bounds' decimal text):
// in int64 a minimum of 1e308 overflowed to -9223372036854775808. A value
// beyond int64 is written as a float64 whose shortest text (1e+308) is an
// integer that meets the bounds, which validators read as the integer it
// is.
func (s *synth) integer(sch map[string]any) any {
	lo, loX, hasLo, hi, hiX, hasHi := bounds(sch)
	// The smallest and largest integers allowed.
	var least, most *big.Int
	if hasLo {
		if loX {
			least = new(big.Int).Add(floorRat(exactRat(lo)), big.NewInt(1))
		} else {
			least = ceilRat(exactRat(lo))
		}
	}
	if hasHi {
		if hiX {
			most = new(big.Int).Sub(ceilRat(exactRat(hi)), big.NewInt(1))
		} else {
			most = floorRat(exactRat(hi))
		}
	}
	v := big.NewInt(1)
	switch {
	case least != nil && least.Cmp(v) > 0:
		v = least
	case most != nil && most.Cmp(v) < 0:
		v = most
	}
	var step *big.Int
	if m, ok := numOf(sch["multipleOf"]); ok && m > 0 {
		// The integers that are multiples of p/q (in lowest terms) are
		// the multiples of p.
		step = exactRat(m).Num()
		up := new(big.Int).Neg(new(big.Int).Mul(new(big.Int).Div(new(big.Int).Neg(v), step), step))
		if most == nil || up.Cmp(most) <= 0 {
			v = up
		} else {
			v = new(big.Int).Mul(new(big.Int).Div(v, step), step)
		}
	}
	if v.IsInt64() {
		return v.Int64()
	}
	// Beyond int64 the value travels as a float64, whose shortest text is
	// another integer when v has more digits than a float64 keeps: walk
	// from the nearest float64 away from the bound v came from until its
	// text meets every constraint (a few steps at most in practice).
	allowed := func(f float64) bool {
		if math.IsInf(f, 0) {
			return false
		}
		r := exactRat(f)
		return r.IsInt() && (least == nil || r.Num().Cmp(least) >= 0) && (most == nil || r.Num().Cmp(most) <= 0) &&
			(step == nil || new(big.Int).Mod(r.Num(), step).Sign() == 0)
	}
	f, _ := strconv.ParseFloat(v.String(), 64) // ±Inf past float64's range
	f = math.Max(-math.MaxFloat64, math.Min(math.MaxFloat64, f))
	toward := math.Inf(1)
	if most != nil && (least == nil || v.Cmp(most) == 0) {
		toward = math.Inf(-1)
	}
	for range 256 {
		if allowed(f) {
			return f
		}
		f = math.Nextafter(f, toward)
	}
	s.note("no number a float64 writes meets the integer's bounds: %s was written", strconv.FormatFloat(f, 'g', -1, 64))
	return f
}

// exactRat is the number a bound's JSON text names: its shortest decimal,
// which validators read, not the float64 it was decoded into.
func exactRat(x float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	return r
}

// floorRat and ceilRat round r to an integer (big.Int.Div is Euclidean, and
// a Rat's denominator is positive, so Div floors).
func floorRat(r *big.Rat) *big.Int { return new(big.Int).Div(r.Num(), r.Denom()) }

func ceilRat(r *big.Rat) *big.Int {
	return new(big.Int).Neg(new(big.Int).Div(new(big.Int).Neg(r.Num()), r.Denom()))
}

func number(sch map[string]any) float64 {
	lo, loX, hasLo, hi, hiX, hasHi := bounds(sch)
	v := 1.5
	switch {
	case hasLo && hasHi:
		v = lo/2 + hi/2 // hi-lo overflows for bounds of ±1e308
	case hasLo && (v < lo || (loX && v <= lo)):
		v = lo
		if loX {
			v = above(lo)
		}
	case hasHi && (v > hi || (hiX && v >= hi)):
		v = hi
		if hiX {
			v = -above(-hi)
		}
	}
	if m, ok := numOf(sch["multipleOf"]); ok && m > 0 {
		k := math.Ceil(v / m)
		if hasLo && (k*m < lo || (loX && k*m <= lo)) {
			k++
		}
		if hasHi && (k*m > hi || (hiX && k*m >= hi)) {
			k = math.Floor(v / m)
		}
		// Round to m's decimals so the JSON text is an exact multiple
		// (0.30000000000000004 is not a multiple of 0.1).
		d := denominator(m)
		v = math.Round(k*m*d) / d
	}
	return v
}

// above is x+1, or the next float64 up where adding 1 changes nothing
// (beyond 2^53: 1e308+1 is 1e308).
func above(x float64) float64 {
	if y := x + 1; y > x {
		return y
	}
	return math.Nextafter(x, math.Inf(1))
}

// denominator is the power of ten that makes m whole (1 for 5, 100 for
// 0.25), capped so odd floats do not loop.
func denominator(m float64) float64 {
	d := 1.0
	for i := 0; i < 12 && math.Abs(m*d-math.Round(m*d)) > 1e-9; i++ {
		d *= 10
	}
	return d
}

var formatSamples = map[string]string{
	"date-time":             "2026-01-02T15:04:05Z",
	"date":                  "2026-01-02",
	"time":                  "15:04:05Z",
	"duration":              "P1D",
	"email":                 "user@example.com",
	"idn-email":             "user@example.com",
	"hostname":              "example.com",
	"idn-hostname":          "example.com",
	"ipv4":                  "192.0.2.1",
	"ipv6":                  "2001:db8::1",
	"uri":                   "https://example.com/resource",
	"uri-reference":         "https://example.com/resource",
	"iri":                   "https://example.com/resource",
	"url":                   "https://example.com/resource",
	"uuid":                  "123e4567-e89b-42d3-a456-426614174000",
	"regex":                 "^[a-z]+$",
	"json-pointer":          "/a/b",
	"relative-json-pointer": "0/a",
	"iri-reference":         "https://example.com/resource",
	"uri-template":          "https://example.com/items/{id}",
	"period":                "2026-01-02T00:00:00Z/P1D",
	"semver":                "1.0.0",
}

func (s *synth) str(sch map[string]any, name string) string {
	minL, maxL := intOf(sch["minLength"], 0), intOf(sch["maxLength"], -1)
	if minL > MaxSynthString {
		s.note("minLength %d is above toolwire's synthesis bound: the string has %d characters", minL, MaxSynthString)
		minL = MaxSynthString
	}
	if minL > s.budget {
		// Many long strings together: each is honoured while the budget
		// lasts (2,000 of 64 KiB made a 131 MB answer).
		s.note(budgetNote, MaxSynthBytes)
		minL = max(s.budget, 0)
	}
	v := str(sch, name, minL, maxL)
	s.spend(len(v))
	return v
}

// str builds a string for a string schema, minL and maxL already bounded.
func str(sch map[string]any, name string, minL, maxL int) string {
	fits := func(v string) bool {
		n := utf8.RuneCountInString(v)
		return n >= minL && (maxL < 0 || n <= maxL)
	}
	if f, ok := sch["format"].(string); ok {
		if v, ok := formatSamples[f]; ok && fits(v) {
			return v
		}
	}
	if p, ok := sch["pattern"].(string); ok {
		if v, ok := fromPattern(p, minL, maxL); ok {
			return v
		}
	}
	v := sampleFor(name)
	if n := utf8.RuneCountInString(v); n < minL {
		v += strings.Repeat("x", minL-n)
	}
	if maxL >= 0 && utf8.RuneCountInString(v) > maxL {
		v = string([]rune(v)[:maxL])
	}
	return v
}

// sampleFor picks a plausible value from a property name, so default-mode
// calls read naturally in logs ("city": "Paris").
func sampleFor(name string) string {
	n := strings.ToLower(name)
	switch {
	case strings.Contains(n, "city") || strings.Contains(n, "location"):
		return "Paris"
	case strings.Contains(n, "country"):
		return "France"
	case strings.Contains(n, "email"):
		return "user@example.com"
	case strings.Contains(n, "url"):
		return "https://example.com"
	case strings.Contains(n, "path") || strings.Contains(n, "file"):
		return "src/main.go"
	case strings.Contains(n, "query") || strings.Contains(n, "text") || strings.Contains(n, "prompt"):
		return "hello"
	case n == "":
		return "value"
	}
	return "sample " + name
}

// fromPattern builds a string the pattern matches, within the length
// bounds: it walks the parsed expression taking the first alternative and
// the fewest repetitions, then stretches repetitions until minLength is
// met. JSON Schema patterns are ECMA-262; the RE2 subset Go parses covers
// what tool schemas use. ok is false for a pattern it cannot satisfy.
func fromPattern(pattern string, minL, maxL int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	check, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	re = re.Simplify()
	// No candidate needs more bytes than this: past it, generation stops.
	limit := 4*max(minL, 1) + 64
	if maxL >= 0 {
		limit = min(limit, 4*maxL+4)
	}
	gen := func(stretch int) (string, int) {
		g := regexGen{limit: limit, steps: 8*limit + 1024}
		g.gen(re, stretch)
		v := g.b.String()
		return v, utf8.RuneCountInString(v)
	}
	try := func(stretch int) (v string, ok, tooLong bool) {
		v, n := gen(stretch)
		if maxL >= 0 && n > maxL {
			return "", false, true
		}
		return v, n >= minL && check.MatchString(v), false
	}
	last := max(minL, 1) + 1
	if last <= 64 {
		for stretch := 0; stretch <= last; stretch++ {
			v, ok, tooLong := try(stretch)
			if tooLong {
				return "", false
			}
			if ok {
				return v, true
			}
		}
		return "", false
	}
	// A long minLength: the length grows with stretch, so find the least
	// stretch long enough by doubling and bisecting (a handful of
	// generations, not one per character), then try it and the next two.
	lo, hi := 0, 1
	for {
		if _, n := gen(hi); n >= minL || hi >= last {
			break
		}
		lo, hi = hi, min(2*hi, last)
	}
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if _, n := gen(mid); n >= minL {
			hi = mid
		} else {
			lo = mid
		}
	}
	for stretch := hi; stretch <= min(hi+2, last); stretch++ {
		v, ok, tooLong := try(stretch)
		if tooLong {
			return "", false
		}
		if ok {
			return v, true
		}
	}
	return "", false
}

// regexGen writes a match of a regular expression, at most limit bytes and
// steps operations, so nested repetitions cannot run away.
type regexGen struct {
	b     strings.Builder
	limit int
	steps int
}

// gen appends a match of re; repetitions run stretch extra times (bounded
// by their maximum) so a longer match can be asked for.
func (g *regexGen) gen(re *syntax.Regexp, stretch int) {
	g.steps--
	if g.steps < 0 || g.b.Len() >= g.limit {
		return
	}
	b := &g.b
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		b.WriteRune(pickRune(re.Rune))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteRune('a')
	case syntax.OpCapture:
		g.gen(re.Sub[0], stretch)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			g.gen(s, stretch)
		}
	case syntax.OpAlternate:
		g.gen(re.Sub[0], stretch)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		n := lo + stretch
		if hi >= 0 && n > hi {
			n = hi
		}
		for i := 0; i < n && g.steps > 0 && b.Len() < g.limit; i++ {
			g.gen(re.Sub[0], stretch)
		}
	}
	// Anchors, word boundaries and empty matches add nothing.
}

// pickRune chooses a readable rune from a class given as [lo, hi] pairs:
// a lower-case letter, digit or upper-case letter when the class has one.
func pickRune(ranges []rune) rune {
	for _, want := range []rune{'a', '0', 'A', '_', '-', ' '} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if unicode.IsPrint(r) && r != '\n' {
				return r
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

func numOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func intOf(v any, def int) int {
	if f, ok := numOf(v); ok {
		return int(f)
	}
	return def
}

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
