// Package rules holds the rule engine shared by the mock provider and the
// conformance suite: rules are data (stable ID, dialect, level, summary,
// source) with one small check function each.
package rules

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/models"
)

// Level is the normative strength of a rule.
type Level string

const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
)

// Rule is one catalog entry.
type Rule struct {
	ID      string       `json:"id"` // stable, e.g. "anthropic.tool-result-first"
	Dialect conv.Dialect `json:"dialect"`
	Level   Level        `json:"level"`
	Summary string       `json:"summary"`
	// Refs are the public places the rule's facts come from, so a reader
	// can check its origin. Source is the same rendered as one line
	// (SourceText); a catalog fills whichever of the two is missing.
	Refs   []Ref  `json:"refs,omitempty"`
	Source string `json:"source"`
	// Family names the part of the protocol the rule protects (the
	// suite's spec_<family>.go groups its specs by it).
	Family string `json:"family,omitempty"`
	// Why says why the rule has its level: a MUST because the real API
	// refuses the breach or data the model needs is lost on the way, a
	// SHOULD because neither need follow. Set on the rules the suite
	// judges; a request rule's level says it (a MUST is the API's refusal).
	Why string `json:"why,omitempty"`
	// Feature tags the rule for profiles (e.g. "images", "reasoning").
	Feature string `json:"feature,omitempty"`
	// Option names the serve flag that changes this rule's behaviour, where
	// the reference marks the underlying fact as inferred.
	Option string `json:"option,omitempty"`
	// Check inspects a decoded request. It is nil for rules the suite
	// judges from outside the request (RAP deliveries, scenario checks).
	Check CheckFunc `json:"-"`
	// Cases are the rule's break/fix request pairs.
	Cases []Case `json:"-"`
}

// CheckFunc returns every violation of one rule in a request. req is the
// dialect's own decoded request type.
type CheckFunc func(req any, env *Env) []Violation

// Violation is one breach of a rule, with everything needed both to journal
// it and to answer it exactly as the real API would.
type Violation struct {
	Rule    string `json:"rule"`
	Level   Level  `json:"level"`
	Path    string `json:"path,omitempty"` // JSON path into the request
	Message string `json:"message"`        // the provider's verbatim text
	// The answer, when the violation is answered (MUST, not lenient).
	Status  int    `json:"status,omitempty"`
	ErrType string `json:"error_type,omitempty"` // OpenAI/Anthropic error.type, Gemini error.status
	Param   any    `json:"param,omitempty"`      // OpenAI only
	Code    any    `json:"code,omitempty"`       // OpenAI only
	// Order is where in the request the breach sits (message or item
	// index; -1 for request-level breaches such as headers). A real API
	// reports the first breach it meets scanning the request, so Run sorts
	// by it.
	Order int `json:"-"`
}

func (v Violation) String() string {
	if v.Path != "" {
		return fmt.Sprintf("%s [%s] at %s: %s", v.Rule, v.Level, v.Path, v.Message)
	}
	return fmt.Sprintf("%s [%s]: %s", v.Rule, v.Level, v.Message)
}

// Options are the behaviours the reference marks as inferred, so users can
// flip them to match what they observe from the real API.
type Options struct {
	// Lenient journals MUST violations but answers normally.
	Lenient bool
	// StrictRoles answers Anthropic role-alternation and first-message-user
	// breaches with the historical 400 instead of journaling a SHOULD.
	StrictRoles bool
	// OpenAIToolParam picks the `param` OpenAI gives for an unanswered
	// tool call: "role" → "messages.[N].role" (2025-26 captures, N the
	// assistant message), "messages" → "messages" (2024 captures).
	OpenAIToolParam string
	// GeminiRoleMessage picks the invalid-role wording: "classic" (2024-25)
	// or "v3.6" (newer models list SYSTEM, USER, …).
	GeminiRoleMessage string
	// ThoughtSignatures: "auto" (enforce for gemini-3* models), "always",
	// or "never".
	ThoughtSignatures string
}

// DefaultOptions are what a fresh `toolwire serve` uses.
func DefaultOptions() Options {
	return Options{OpenAIToolParam: "role", GeminiRoleMessage: "classic", ThoughtSignatures: "auto"}
}

// Env is what a check may consult beyond the request itself.
type Env struct {
	Options Options
	Model   string
	// ModelInfo is the catalog entry of Model (nil: unknown or unlisted),
	// what the capability rules consult.
	ModelInfo *models.Model
	// IssuedReasoning returns the reasoning item id the mock emitted just
	// before the function_call item with this fc_ id (OpenAI Responses), or
	// "" if the mock did not issue that item after a reasoning item.
	IssuedReasoning func(itemID string) string
}

// Catalog is the request's model catalog entry: nil when the model is
// unknown or unlisted, or the checks run without an Env.
func (e *Env) Catalog() *models.Model {
	if e == nil {
		return nil
	}
	return e.ModelInfo
}

// Catalog is an ordered set of rules with unique IDs.
type Catalog struct {
	rules []Rule
	byID  map[string]int
}

// NewCatalog builds a catalog, rejecting duplicate or malformed entries: a
// catalog is code, so a bad entry is a programming error.
func NewCatalog(sets ...[]Rule) *Catalog {
	c := &Catalog{byID: map[string]int{}}
	for _, set := range sets {
		for _, r := range set {
			switch {
			case len(r.Refs) == 0 && r.Source != "":
				r.Refs = ParseSource(r.Source)
			case r.Source == "" && len(r.Refs) > 0:
				r.Source = SourceText(r.Refs)
			}
			if bad := checkRefs(r.Refs); bad != "" {
				panic(fmt.Sprintf("rules: %s: %s", r.ID, bad))
			}
			if r.ID == "" || r.Summary == "" || (r.Level != MUST && r.Level != SHOULD) {
				panic(fmt.Sprintf("rules: incomplete catalog entry %+v", r))
			}
			if !strings.HasPrefix(r.ID, string(r.Dialect)+".") {
				panic(fmt.Sprintf("rules: id %q must start with its dialect %q", r.ID, r.Dialect))
			}
			if _, dup := c.byID[r.ID]; dup {
				panic("rules: duplicate rule id " + r.ID)
			}
			c.byID[r.ID] = len(c.rules)
			c.rules = append(c.rules, r)
		}
	}
	return c
}

// All returns the rules sorted by ID.
func (c *Catalog) All() []Rule {
	out := append([]Rule(nil), c.rules...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Get finds a rule by ID.
func (c *Catalog) Get(id string) (Rule, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Rule{}, false
	}
	return c.rules[i], true
}

// ForDialect returns a dialect's rules in declaration order.
func (c *Catalog) ForDialect(d conv.Dialect) []Rule {
	var out []Rule
	for _, r := range c.rules {
		if r.Dialect == d {
			out = append(out, r)
		}
	}
	return out
}

// Run applies every rule of a dialect that has a check, stamping each
// violation with its rule's ID and level. Violations come back ordered by
// their position in the request, ties in catalog order, so the first MUST
// one is the one a real API would report first.
func Run(set []Rule, req any, env *Env) []Violation {
	var out []Violation
	for _, r := range set {
		if r.Check == nil {
			continue
		}
		for _, v := range r.Check(req, env) {
			v.Rule = r.ID
			v.Level = r.Level
			out = append(out, v)
		}
	}
	if len(out) > 1 {
		slices.SortStableFunc(out, func(a, b Violation) int { return cmp.Compare(a.Order, b.Order) })
	}
	return out
}

// FirstMust returns the first MUST violation, or nil.
func FirstMust(vs []Violation) *Violation {
	for i := range vs {
		if vs[i].Level == MUST {
			return &vs[i]
		}
	}
	return nil
}
