package rules

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Ref is one public place a rule's fact comes from: a documentation page,
// an issue thread quoting the real answer, an SDK source path at a tag, or
// a file of this repository holding recorded real exchanges.
type Ref struct {
	// URL is a public https address or a repository path
	// ("testdata/corpus/…"). It is empty only for an inference note: a
	// fact (usually a message's exact wording) no public place shows.
	URL string `json:"url,omitempty"`
	// Quote is what the place says (the API's text, verbatim where it is
	// quoted) or what was read from it.
	Quote string `json:"quote,omitempty"`
	// Inferred marks a fact read from the place rather than seen in it.
	Inferred bool `json:"inferred,omitempty"`
}

// Case is a pair of requests for one rule: Bad breaks it, Good is the same
// request corrected. One shared test posts both to a live server, so a rule
// that cannot fail, or that fires on the fix, is caught; fuzzing and the
// `check` command use them as seeds.
type Case struct {
	Rule string // the rule's ID (filled in by Set.Add)
	Name string // short description of the breach
	// Path is the endpoint path; "" means the dialect's first route (for
	// Gemini, use the full path with the model, e.g.
	// "/v1beta/models/gemini-3-flash-preview:generateContent").
	Path string
	// GoodPath, when set, is the Good request's path (a Gemini model
	// named in the path: an unknown one for Bad, a served one for Good).
	GoodPath string
	// Headers are sent with both requests (the API key is added by the
	// runner unless Headers sets one; Header value "-" removes a header the
	// runner would otherwise add).
	Headers map[string]string
	// Setup requests run first in the same session; Bad and Good may
	// reference their responses as {{setup:N:GJSON.PATH}}.
	Setup []json.RawMessage
	Bad   json.RawMessage
	Good  json.RawMessage
	// WantStatus and WantMessage are what the real API answers to Bad
	// (WantMessage may be a prefix; the runner also checks the envelope
	// shape and the X-Toolwire-Rule header). SHOULD rules leave WantStatus
	// 0: Bad must succeed and be journaled as a violation.
	WantStatus  int
	WantMessage string
}

// Phase is where in its validation a real API meets a breach. An API
// reports the first breach it meets, so violations are ordered by phase,
// then by position within the phase.
type Phase int

const (
	// PhaseRequest: headers and request-level members, met before any
	// message is read.
	PhaseRequest Phase = iota
	// PhaseShape: member types, required members and allowed values,
	// message by message.
	PhaseShape
	// PhaseMeaning: what the conversation means as a whole (schemas
	// compiled, calls paired with results), met after every message has
	// its shape.
	PhaseMeaning
)

// phaseSpan leaves room for any position a request can hold.
const phaseSpan = 1 << 24

// At is the Violation.Order of a breach at index (a message, item, tool or
// block position; 0 where the breach has no position) in phase p.
func At(p Phase, index int) int { return int(p)*phaseSpan + index }

// Set is one dialect's rules, declared where their checks are: each Add
// gives a rule its dialect, wraps its typed check, and stamps its cases
// with its ID.
type Set[Req any] struct {
	dialect conv.Dialect
	topics  []string
	rules   []declared
}

// declared is a rule with the place of its Add call.
type declared struct {
	rule Rule
	file string
	line int
}

// NewSet starts the rule set of dialect d, whose checks read *Req.
// topics, when given, are the dialect's rule files in the order its API
// validates them (files not listed follow, by name).
func NewSet[Req any](d conv.Dialect, topics ...string) *Set[Req] {
	return &Set[Req]{dialect: d, topics: topics}
}

// Add declares a rule with its check (nil for a rule judged outside a
// request) and returns its ID, so a declaration can name the constant the
// rest of the dialect uses.
func (s *Set[Req]) Add(r Rule, check func(req *Req, env *Env) []Violation) string {
	r.Dialect = s.dialect
	if check != nil {
		r.Check = func(req any, env *Env) []Violation { return check(req.(*Req), env) }
	}
	for i := range r.Cases {
		r.Cases[i].Rule = r.ID
	}
	_, file, line, _ := runtime.Caller(1)
	s.rules = append(s.rules, declared{rule: r, file: filepath.Base(file), line: line})
	return r.ID
}

// Rules returns the declared rules in declaration order: by the file
// that declares them (the topics' order, then by name), then by line.
// Run reports the breaches of one place in this order, so it must not
// depend on the order Go initializes a package's variables in, which
// follows their dependencies before their files.
func (s *Set[Req]) Rules() []Rule {
	rank := func(file string) int {
		if i := slices.Index(s.topics, file); i >= 0 {
			return i
		}
		return len(s.topics)
	}
	sorted := slices.Clone(s.rules)
	slices.SortStableFunc(sorted, func(a, b declared) int {
		return cmp.Or(cmp.Compare(rank(a.file), rank(b.file)), strings.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	out := make([]Rule, len(sorted))
	for i, d := range sorted {
		out[i] = d.rule
	}
	return out
}

// Cases returns the break/fix cases of every declared rule.
func (s *Set[Req]) Cases() []Case {
	var out []Case
	for _, r := range s.Rules() {
		out = append(out, r.Cases...)
	}
	return out
}

// SourceText renders a rule's references as one line: each reference's
// URL, its quote in parentheses, and [I] when inferred, joined by "; ".
func SourceText(refs []Ref) string {
	parts := make([]string, 0, len(refs))
	for _, r := range refs {
		var b strings.Builder
		b.WriteString(r.URL)
		if r.Quote != "" {
			if r.URL != "" {
				b.WriteString(" (" + r.Quote + ")")
			} else {
				b.WriteString(r.Quote)
			}
		}
		if r.Inferred {
			b.WriteString(" [I]")
		}
		parts = append(parts, b.String())
	}
	return strings.Join(parts, "; ")
}

var (
	refURL  = regexp.MustCompile(`^https?://[^\s)]+`)
	refFile = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)+`)
)

// ParseSource reads a source line written before references were
// declared one by one ("URL (quote); URL (quote) [V]; text [I]") into
// references: a part that starts with a URL or a repository path is one
// reference, the rest of it its quote; any other part is an inference
// note. [I] marks an inferred part; [V] (verified) is dropped.
func ParseSource(source string) []Ref {
	var out []Ref
	for _, part := range strings.Split(source, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		var ref Ref
		if strings.Contains(part, "[I]") {
			ref.Inferred = true
			part = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(part, " [I]", ""), "[I]", ""))
		}
		part = strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(part, " [V]", ""), "[V]", ""))
		switch {
		case refURL.MatchString(part):
			ref.URL = strings.TrimRight(refURL.FindString(part), ".,")
		case refFile.MatchString(part):
			ref.URL = refFile.FindString(part)
		}
		rest := strings.TrimSpace(part[len(ref.URL):])
		if ref.URL != "" && strings.HasPrefix(rest, "(") && strings.HasSuffix(rest, ")") && balanced(rest[1:len(rest)-1]) {
			rest = rest[1 : len(rest)-1]
		}
		ref.Quote = rest
		out = append(out, ref)
	}
	return out
}

// balanced reports whether s's parentheses pair up, so "(a) and (b)" is
// not read as one parenthesised quote.
func balanced(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// checkRefs reports what is wrong with a rule's references ("" = fine).
func checkRefs(refs []Ref) string {
	if len(refs) == 0 {
		return "no references"
	}
	for _, r := range refs {
		if r.URL == "" && !r.Inferred {
			return fmt.Sprintf("reference %q has no URL and is not an inference note", r.Quote)
		}
	}
	return ""
}
