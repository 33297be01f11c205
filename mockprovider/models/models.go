// Package models is the catalog of the models each API serves: which ids
// exist (an unknown id gets the API's 404) and what each model accepts (the
// capability rules read it). The built-in catalog is catalog.yaml; serve
// --models adds or overrides entries from a file of the same shape.
package models

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// API names a provider's model namespace. Chat Completions and Responses
// share OpenAI's.
type API string

const (
	OpenAI    API = "openai"
	Anthropic API = "anthropic"
	Gemini    API = "gemini"
	Bedrock   API = "bedrock"
)

// APIs are the catalog's namespaces in file order.
var APIs = []API{OpenAI, Anthropic, Gemini, Bedrock}

// Wildcard is the id of an entry that accepts every id of its API (for
// tests written against made-up model names). Its capabilities are unknown,
// so no capability rule refuses anything on its account.
const Wildcard = "*"

// Model is one catalog entry. A fact left unset is unknown and refuses
// nothing (see catalog.yaml).
type Model struct {
	ID          string   `yaml:"id" json:"id"`
	Aliases     []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	DisplayName string   `yaml:"display_name,omitempty" json:"display_name,omitempty"`
	Created     string   `yaml:"created,omitempty" json:"created,omitempty"`
	// Retires is the end of life a deprecated model has been given
	// (YYYY-MM-DD): the Models API reports it deprecated until then.
	Retires           string   `yaml:"retires,omitempty" json:"retires,omitempty"`
	Reasoning         *bool    `yaml:"reasoning,omitempty" json:"reasoning,omitempty"`
	Efforts           []string `yaml:"efforts,omitempty" json:"efforts,omitempty"`
	Thinking          []string `yaml:"thinking,omitempty" json:"thinking,omitempty"`
	ThoughtSignatures bool     `yaml:"thought_signatures,omitempty" json:"thought_signatures,omitempty"`
	Inputs            []string `yaml:"inputs,omitempty" json:"inputs,omitempty"`
	NoDeveloperRole   bool     `yaml:"no_developer_role,omitempty" json:"no_developer_role,omitempty"`
	NoSystemRole      bool     `yaml:"no_system_role,omitempty" json:"no_system_role,omitempty"`
	WebSearch         *bool    `yaml:"web_search,omitempty" json:"web_search,omitempty"`
	Endpoints         []string `yaml:"endpoints,omitempty" json:"endpoints,omitempty"`
	MaxOutputTokens   int64    `yaml:"max_output_tokens,omitempty" json:"max_output_tokens,omitempty"`
	InputTokenLimit   int64    `yaml:"input_token_limit,omitempty" json:"input_token_limit,omitempty"`
	// StructuredOutputs are the request members a model takes a JSON
	// output schema in (Anthropic: output_config, the deprecated
	// output_format); nil is unknown, an empty list none.
	StructuredOutputs *[]string `yaml:"structured_outputs,omitempty" json:"structured_outputs,omitempty"`

	// effortsKnown tells "efforts: []" (no effort parameter at all) from
	// an absent list (unknown).
	effortsKnown bool
}

// IsWildcard reports the entry that stands for every id.
func (m *Model) IsWildcard() bool { return m != nil && m.ID == Wildcard }

// NotReasoning reports a model known to refuse reasoning parameters.
func (m *Model) NotReasoning() bool {
	return m != nil && m.Reasoning != nil && !*m.Reasoning
}

// RefusesEffort reports whether the model is known to refuse effort level
// (any level when its list is empty).
func (m *Model) RefusesEffort(level string) bool {
	return m != nil && m.effortsKnown && !slices.Contains(m.Efforts, level)
}

// EffortsKnown reports whether the model's effort levels are recorded.
func (m *Model) EffortsKnown() bool { return m != nil && m.effortsKnown }

// RefusesInput reports whether the model is known not to take an input
// modality (text, image, audio, video, file).
func (m *Model) RefusesInput(kind string) bool {
	return m != nil && len(m.Inputs) > 0 && !slices.Contains(m.Inputs, kind)
}

// RefusesWebSearch reports a model known to lack web search.
func (m *Model) RefusesWebSearch() bool {
	return m != nil && m.WebSearch != nil && !*m.WebSearch
}

// RefusesStructuredOutput reports whether the model is known not to take
// a JSON output schema in member (any member when its list is empty).
func (m *Model) RefusesStructuredOutput(member string) bool {
	return m != nil && m.StructuredOutputs != nil && !slices.Contains(*m.StructuredOutputs, member)
}

// Serves reports whether an OpenAI model is served on an endpoint ("chat",
// "responses"); other APIs' models, and models without a list, serve all.
func (m *Model) Serves(endpoint string) bool {
	return m == nil || len(m.Endpoints) == 0 || slices.Contains(m.Endpoints, endpoint)
}

// HasThinking reports whether the model takes a thinking mode (Anthropic
// "enabled", "adaptive"; Gemini "budget", "level"), or its modes are
// unknown.
func (m *Model) HasThinking(mode string) bool {
	return m == nil || len(m.Thinking) == 0 || slices.Contains(m.Thinking, mode)
}

// UnmarshalYAML keeps whether efforts was given.
func (m *Model) UnmarshalYAML(n *yaml.Node) error {
	type plain Model
	var p plain
	if err := decodeStrict(n, &p); err != nil {
		return err
	}
	*m = Model(p)
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == "efforts" {
				m.effortsKnown = true
			}
		}
	}
	return nil
}

// decodeStrict decodes a node refusing unknown members, so a misspelt
// capability in a --models file is an error rather than silently unknown.
func decodeStrict(n *yaml.Node, v any) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(n); err != nil {
		return err
	}
	dec := yaml.NewDecoder(&buf)
	dec.KnownFields(true)
	return dec.Decode(v)
}

// Catalog is the set of models of every API, looked up by id or alias.
type Catalog struct {
	byAPI map[API]*apiModels
}

type apiModels struct {
	list     []*Model // file order: the models lists
	byID     map[string]*Model
	wildcard *Model
}

// file is catalog.yaml's shape, and a --models file's.
type file struct {
	OpenAI    []Model `yaml:"openai"`
	Anthropic []Model `yaml:"anthropic"`
	Gemini    []Model `yaml:"gemini"`
	Bedrock   []Model `yaml:"bedrock"`
}

//go:embed catalog.yaml
var builtinYAML []byte

var builtin = sync.OnceValue(func() *Catalog {
	c, err := Parse(builtinYAML)
	if err != nil {
		panic("models: built-in catalog: " + err.Error())
	}
	return c
})

// Builtin is the catalog shipped with toolwire.
func Builtin() *Catalog { return builtin() }

// maxFileSize bounds a --models file: a catalog is a few kilobytes.
const maxFileSize = 4 << 20

// Parse reads a catalog in catalog.yaml's shape (YAML or JSON).
func Parse(data []byte) (*Catalog, error) {
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("models: catalog larger than %d bytes", maxFileSize)
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("models: %w", err)
	}
	c := &Catalog{byAPI: map[API]*apiModels{}}
	for _, api := range APIs {
		c.byAPI[api] = &apiModels{byID: map[string]*Model{}}
	}
	for api, list := range map[API][]Model{OpenAI: f.OpenAI, Anthropic: f.Anthropic, Gemini: f.Gemini, Bedrock: f.Bedrock} {
		for i := range list {
			if err := c.byAPI[api].add(&list[i]); err != nil {
				return nil, fmt.Errorf("models: %s[%d]: %w", api, i, err)
			}
		}
	}
	return c, nil
}

// ParseFile reads a --models file.
func ParseFile(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// allowed are the values of the enumerated members, so a misspelt one in
// a --models file is an error instead of a fact that silently refuses.
var allowed = map[string][]string{
	"inputs":    {"text", "image", "audio", "video", "file"},
	"thinking":  {"enabled", "adaptive", "budget", "level"},
	"endpoints": {"chat", "responses"},
}

func (m *Model) validate() error {
	for member, values := range map[string][]string{"inputs": m.Inputs, "thinking": m.Thinking, "endpoints": m.Endpoints} {
		for _, v := range values {
			if !slices.Contains(allowed[member], v) {
				return fmt.Errorf("%s: %s %q is not one of %s", m.ID, member, v, strings.Join(allowed[member], ", "))
			}
		}
	}
	if m.Retires != "" {
		if _, err := time.Parse(time.DateOnly, m.Retires); err != nil {
			return fmt.Errorf("%s: retires %q is not a YYYY-MM-DD date", m.ID, m.Retires)
		}
	}
	if m.Created != "" {
		if _, err := time.Parse(time.DateOnly, m.Created); err != nil {
			return fmt.Errorf("%s: created %q is not a YYYY-MM-DD date", m.ID, m.Created)
		}
	}
	return nil
}

func (a *apiModels) add(m *Model) error {
	if m.ID == "" {
		return errors.New("entry without an id")
	}
	if err := m.validate(); err != nil {
		return err
	}
	if m.ID == Wildcard {
		a.wildcard = m
		return nil
	}
	for _, id := range append([]string{m.ID}, m.Aliases...) {
		if old, dup := a.byID[id]; dup && old != m {
			return fmt.Errorf("id %q listed twice", id)
		}
		a.byID[id] = m
	}
	a.list = append(a.list, m)
	return nil
}

// With returns a catalog of c's entries overridden and extended by extra's:
// an extra entry replaces the one of c it shares an id or alias with.
func (c *Catalog) With(extra *Catalog) *Catalog {
	if extra == nil {
		return c
	}
	out := &Catalog{byAPI: map[API]*apiModels{}}
	for _, api := range APIs {
		base, more := c.byAPI[api], extra.byAPI[api]
		a := &apiModels{byID: map[string]*Model{}, wildcard: base.wildcard}
		if more.wildcard != nil {
			a.wildcard = more.wildcard
		}
		replaced := map[*Model]bool{}
		for _, m := range more.list {
			for _, id := range append([]string{m.ID}, m.Aliases...) {
				if old, ok := base.byID[id]; ok {
					replaced[old] = true
				}
			}
		}
		for _, m := range base.list {
			if !replaced[m] {
				_ = a.add(m) // ids of c are unique already
			}
		}
		for _, m := range more.list {
			for _, id := range append([]string{m.ID}, m.Aliases...) {
				delete(a.byID, id) // an alias of a kept entry, now the extra's
			}
			_ = a.add(m)
		}
		out.byAPI[api] = a
	}
	return out
}

// Lookup finds the model an id names in an API, the way the API reads ids:
// Gemini's "models/" prefix, OpenAI's fine-tuned ids (ft:BASE:org::id
// names BASE), Vertex AI's claude-…@DATE snapshots. A catalog with a
// wildcard entry finds every id (the wildcard itself when none other
// matches). A nil catalog is the built-in one.
func (c *Catalog) Lookup(api API, id string) (*Model, bool) {
	if c == nil {
		c = Builtin()
	}
	a := c.byAPI[api]
	if a == nil {
		return nil, false
	}
	if m, ok := a.byID[id]; ok {
		return m, true
	}
	if m, ok := a.byID[canonical(api, id)]; ok {
		return m, true
	}
	if a.wildcard != nil {
		return a.wildcard, true
	}
	return nil, false
}

// canonical rewrites the id forms an API accepts for a catalog model.
func canonical(api API, id string) string {
	switch api {
	case Gemini:
		return strings.TrimPrefix(id, "models/")
	case Bedrock:
		// A cross-region inference profile is its model id behind a
		// geography (us.anthropic.claude-…, global.amazon.nova-…).
		for _, geo := range []string{"us.", "eu.", "apac.", "global.", "us-gov.", "jp.", "au."} {
			if rest, ok := strings.CutPrefix(id, geo); ok {
				return rest
			}
		}
	case OpenAI:
		// ft:gpt-4o-mini-2024-07-18:org:suffix:id
		if rest, ok := strings.CutPrefix(id, "ft:"); ok {
			base, _, _ := strings.Cut(rest, ":")
			return base
		}
	case Anthropic:
		// Vertex AI names snapshots claude-sonnet-4-5@20250929.
		return strings.Replace(id, "@", "-", 1)
	}
	return id
}

// List is an API's models in catalog order (the wildcard left out).
func (c *Catalog) List(api API) []*Model {
	if c == nil {
		c = Builtin()
	}
	if a := c.byAPI[api]; a != nil {
		return slices.Clone(a.list)
	}
	return nil
}
