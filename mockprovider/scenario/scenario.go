// Package scenario is the scripted model: YAML files that say, turn by
// turn, what the mock answers (text, parallel calls, reasoning items, thought
// signatures, refusals, faults, stream pacing) and, for the conformance
// suite, which tools a driver declares and what they return.
package scenario

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// Scenario is one script.
type Scenario struct {
	Name        string `json:"name" yaml:"name"`
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// Source names the seed file and section (or doc link) it comes from.
	Source string `json:"source,omitempty" yaml:"source,omitempty"`
	// Features tags the scenario for the suite's profiles (streaming,
	// parallel, images, documents, reasoning, signatures, …).
	Features []string `json:"features,omitempty" yaml:"features,omitempty"`
	// Dialects limits the scenario to some dialects (empty = all).
	Dialects []conv.Dialect `json:"dialects,omitempty" yaml:"dialects,omitempty"`
	// Models gives the model per dialect (the suite's task uses it).
	Models map[conv.Dialect]string `json:"models,omitempty" yaml:"models,omitempty"`
	System string                  `json:"system,omitempty" yaml:"system,omitempty"`
	Prompt string                  `json:"prompt,omitempty" yaml:"prompt,omitempty"`
	// ToolChoice forces a function for the suite's task ("name"), or
	// "required"/"none"/"auto".
	ToolChoice string `json:"tool_choice,omitempty" yaml:"tool_choice,omitempty"`
	MaxTurns   int    `json:"max_turns,omitempty" yaml:"max_turns,omitempty"`
	// Output asks the suite's driver for a structured final answer: the
	// task carries it and the driver sends it as the API's demand, so
	// the model's final turn takes its form. Needs the
	// FeatureStructuredOutput feature.
	Output *Output `json:"output,omitempty" yaml:"output,omitempty"`
	Tools  []Tool  `json:"tools,omitempty" yaml:"tools,omitempty"`
	Turns  []Turn  `json:"turns" yaml:"turns"`
	// File is where the scenario was loaded from (not part of the format).
	File string `json:"-" yaml:"-"`
}

// FeatureStructuredOutput is the feature of a scenario with an Output:
// a driver that does not declare it never runs such a scenario.
const FeatureStructuredOutput = "structured-output"

// Output is the form a scenario asks the final answer to take: a JSON
// value valid against Schema, sent under Name where the API names it.
type Output struct {
	Name   string         `json:"name" yaml:"name"`
	Schema map[string]any `json:"schema" yaml:"schema"`
}

// Tool is a tool the suite's driver declares, with canned results.
type Tool struct {
	Name        string         `json:"name" yaml:"name"`
	Description string         `json:"description,omitempty" yaml:"description,omitempty"`
	Parameters  map[string]any `json:"parameters,omitempty" yaml:"parameters,omitempty"`
	Strict      bool           `json:"strict,omitempty" yaml:"strict,omitempty"`
	Results     []ToolResult   `json:"results,omitempty" yaml:"results,omitempty"`
}

// ToolResult is picked when When is a subset of the call's arguments;
// Result is an MCP CallToolResult.
type ToolResult struct {
	When   map[string]any `json:"when,omitempty" yaml:"when,omitempty"`
	Result map[string]any `json:"result" yaml:"result"`
	// GeneratedTextBytes appends, at load time, one text item of exactly
	// this many bytes to Result's content, so large results need no huge
	// file. After loading, Result already holds the item.
	GeneratedTextBytes int `json:"generated_text_bytes,omitempty" yaml:"generated_text_bytes,omitempty"`
}

// Turn is one scripted model turn.
type Turn struct {
	// Reasoning emits an OpenAI reasoning item before the calls (Responses
	// API); the text becomes its summary. Marked redacted, it is reasoning
	// the client may not read: an Anthropic redacted_thinking block (with
	// thinking on) and a Responses reasoning item without summary.
	Reasoning *Reasoning `json:"reasoning,omitempty" yaml:"reasoning,omitempty"`
	// Text is said before the calls, or is the final answer. "{{results}}"
	// is replaced by the quoted tool results of the request.
	Text string `json:"text,omitempty" yaml:"text,omitempty"`
	// Output is the final answer as a JSON value, for a request that asks
	// for structured output: it is sent as the answer's text, and the
	// journal notes a scenario error when it does not validate against
	// the request's schema. Without it such a request gets a value built
	// from its schema.
	Output  any    `json:"output,omitempty" yaml:"output,omitempty"`
	Calls   []Call `json:"calls,omitempty" yaml:"calls,omitempty"`
	Refusal string `json:"refusal,omitempty" yaml:"refusal,omitempty"`
	// Stream shapes the streamed form of this turn.
	Stream *Stream `json:"stream,omitempty" yaml:"stream,omitempty"`
	// Fault fails this turn's request (see the faults documentation).
	Fault *Fault `json:"fault,omitempty" yaml:"fault,omitempty"`
}

type Reasoning struct {
	Summary  string `json:"summary,omitempty" yaml:"summary,omitempty"`
	Redacted bool   `json:"redacted,omitempty" yaml:"redacted,omitempty"`
}

// Call is one scripted call.
type Call struct {
	Name      string         `json:"name" yaml:"name"`
	Arguments map[string]any `json:"arguments,omitempty" yaml:"arguments,omitempty"`
	// ID overrides the minted call id.
	ID string `json:"id,omitempty" yaml:"id,omitempty"`
	// ThoughtSignature overrides the minted Gemini signature; "-" sends
	// none.
	ThoughtSignature string `json:"thought_signature,omitempty" yaml:"thought_signature,omitempty"`
	// RawArguments is the verbatim argument text for dialects that carry
	// arguments as a JSON string (OpenAI Chat and Responses); it may be
	// broken JSON on purpose. Other dialects send Arguments.
	RawArguments string `json:"raw_arguments,omitempty" yaml:"raw_arguments,omitempty"`
	// Undeclared marks a call that deliberately names a tool the driver did
	// not declare; loading rejects any other call to an unknown tool.
	Undeclared bool `json:"undeclared,omitempty" yaml:"undeclared,omitempty"`
	// InvalidArguments marks arguments that deliberately break the tool's
	// schema; loading rejects any other scripted arguments that do not
	// validate, so typos in fixtures cannot pass as tests of robustness.
	InvalidArguments bool `json:"invalid_arguments,omitempty" yaml:"invalid_arguments,omitempty"`
}

// Stream is per-turn stream pacing (milliseconds).
type Stream struct {
	FragmentSize int `json:"fragment_size,omitempty" yaml:"fragment_size,omitempty"`
	ChunkDelayMS int `json:"chunk_delay_ms,omitempty" yaml:"chunk_delay_ms,omitempty"`
	FirstTokenMS int `json:"first_token_ms,omitempty" yaml:"first_token_ms,omitempty"`
}

// Fault is a per-turn injected failure.
type Fault struct {
	Kind  string `json:"kind" yaml:"kind"`
	Count int    `json:"count,omitempty" yaml:"count,omitempty"`
	After int    `json:"after,omitempty" yaml:"after,omitempty"`
	MS    int    `json:"ms,omitempty" yaml:"ms,omitempty"`
}

// Supports reports whether the scenario runs on a dialect.
func (s *Scenario) Supports(d conv.Dialect) bool {
	if len(s.Dialects) == 0 {
		return true
	}
	for _, x := range s.Dialects {
		if x == d {
			return true
		}
	}
	return false
}

// Set is a named collection of scenarios, safe for concurrent use.
type Set struct {
	mu     sync.RWMutex
	byName map[string]*Scenario
}

// NewSet makes a set from scenarios; a duplicate name is an error naming
// both files.
func NewSet(list ...*Scenario) (*Set, error) {
	s := &Set{byName: map[string]*Scenario{}}
	for _, sc := range list {
		if err := s.Add(sc); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Add puts a scenario in the set.
func (s *Set) Add(sc *Scenario) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.byName[sc.Name]; ok {
		return fmt.Errorf("scenario %q defined twice: %s and %s", sc.Name, old.File, sc.File)
	}
	s.byName[sc.Name] = sc
	return nil
}

// Get finds a scenario by name.
func (s *Set) Get(name string) (*Scenario, bool) {
	if s == nil {
		return nil, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	sc, ok := s.byName[name]
	return sc, ok
}

// Names lists the scenario names, sorted.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.byName))
	for n := range s.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// All returns the scenarios sorted by name.
func (s *Set) All() []*Scenario {
	var out []*Scenario
	for _, n := range s.Names() {
		sc, _ := s.Get(n)
		out = append(out, sc)
	}
	return out
}

// Closest names the scenario whose name is nearest to name, for errors.
func (s *Set) Closest(name string) string {
	best, bestD := "", 1<<30
	for _, n := range s.Names() {
		if d := distance(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// distance is the Levenshtein distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
