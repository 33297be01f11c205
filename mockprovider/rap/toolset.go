package rap

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolwire/toolwire/mockprovider/internal/localschema"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Toolset is a validated discovery manifest (https://infinity.hydro.run/docs/rap/spec/basic/toolsets).
type Toolset struct {
	Name           string    `json:"name"`
	Description    string    `json:"description,omitempty"`
	Endpoint       string    `json:"endpoint"`
	Tools          []ToolDef `json:"tools"`
	NeedsMigration bool      `json:"needsMigration,omitempty"`
}

// ToolDef is one tool of a toolset, with its compiled input schema.
type ToolDef struct {
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	InputSchema   json.RawMessage `json:"inputSchema"`
	Annotations   map[string]any  `json:"annotations,omitempty"`
	DisplayScript string          `json:"displayScript,omitempty"`

	schema *jsonschema.Schema
}

// Tool finds a tool by operation name.
func (t *Toolset) Tool(name string) *ToolDef {
	for i := range t.Tools {
		if t.Tools[i].Name == name {
			return &t.Tools[i]
		}
	}
	return nil
}

// ValidateArguments checks arguments against the tool's inputSchema.
func (d *ToolDef) ValidateArguments(args json.RawMessage) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("arguments must be a JSON object")
	}
	if d.schema == nil {
		return nil
	}
	if err := d.schema.Validate(v); err != nil {
		return fmt.Errorf("arguments do not match the inputSchema of %q: %v", d.Name, err)
	}
	return nil
}

// ToolsetError is a discovery failure; Violations say which rule the tool
// broke (empty when the tool could not be reached at all).
type ToolsetError struct {
	URL        string
	Err        string
	Violations []rules.Violation
}

func (e *ToolsetError) Error() string { return "rap: toolset " + e.URL + ": " + e.Err }

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// DiscoveryURL is where a tool base URL publishes its toolset.
func DiscoveryURL(toolURL string) string {
	return strings.TrimRight(toolURL, "/") + "/.well-known/rap-toolset"
}

// Discover fetches and validates a toolset. The endpoint is resolved
// against the discovery URL, so a relative endpoint such as "/invoke" works.
func Discover(ctx context.Context, client *http.Client, toolURL string) (*Toolset, error) {
	u := DiscoveryURL(toolURL)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &ToolsetError{URL: u, Err: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, &ToolsetError{URL: u, Err: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, &ToolsetError{URL: u, Err: err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("discovery answered HTTP %d", resp.StatusCode)
		return nil, &ToolsetError{URL: u, Err: msg, Violations: []rules.Violation{violation(RuleToolsetManifest, "", msg)}}
	}
	ts, vs := ParseToolset(body, u)
	if len(vs) > 0 {
		return nil, &ToolsetError{URL: u, Err: vs[0].Message, Violations: vs}
	}
	return ts, nil
}

// ParseToolset validates a manifest; any violation rejects it whole.
func ParseToolset(body []byte, discoveryURL string) (*Toolset, []rules.Violation) {
	var vs []rules.Violation
	bad := func(path, format string, args ...any) {
		vs = append(vs, violation(RuleToolsetManifest, path, fmt.Sprintf(format, args...)))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil || raw == nil {
		bad("", "the manifest is not a JSON object")
		return nil, vs
	}
	ts := &Toolset{}
	if !str(raw, "name", &ts.Name) || len(ts.Name) < 1 || len(ts.Name) > 128 {
		bad("name", "name must be a string of 1 to 128 characters")
	}
	if _, ok := raw["description"]; ok && !str(raw, "description", &ts.Description) {
		bad("description", "description must be a string")
	}
	if !str(raw, "endpoint", &ts.Endpoint) || ts.Endpoint == "" {
		bad("endpoint", "endpoint must be a non-empty URL string")
	} else if ep, err := resolve(discoveryURL, ts.Endpoint); err != nil {
		bad("endpoint", "endpoint %q is not a usable http(s) URL", ts.Endpoint)
	} else {
		ts.Endpoint = ep
	}
	if v, ok := raw["needsMigration"]; ok && json.Unmarshal(v, &ts.NeedsMigration) != nil {
		bad("needsMigration", "needsMigration must be a boolean")
	}
	var tools []map[string]json.RawMessage
	if err := json.Unmarshal(raw["tools"], &tools); err != nil || len(tools) == 0 {
		bad("tools", "tools must be a non-empty array of tool objects")
		return nil, vs
	}
	seen := map[string]bool{}
	for i, t := range tools {
		p := fmt.Sprintf("tools[%d]", i)
		var d ToolDef
		if t == nil {
			bad(p, "a tool must be an object")
			continue
		}
		if !str(t, "name", &d.Name) || !toolNameRE.MatchString(d.Name) {
			bad(p+".name", "tool name must be 1-128 characters of [A-Za-z0-9_-]")
		} else if seen[d.Name] {
			vs = append(vs, violation(RuleToolsetUnique, p+".name", fmt.Sprintf("tool name %q is defined twice", d.Name)))
		}
		seen[d.Name] = true
		if !str(t, "description", &d.Description) {
			bad(p+".description", "tool description must be a string")
		}
		if sch, err := compileSchema(t["inputSchema"]); err != nil {
			bad(p+".inputSchema", "inputSchema is not a valid JSON Schema object: %v", err)
		} else {
			d.InputSchema, d.schema = t["inputSchema"], sch
		}
		if a, ok := t["annotations"]; ok {
			if msg := checkAnnotations(a, &d); msg != "" {
				bad(p+".annotations", "%s", msg)
			}
		}
		if v, ok := t["displayScript"]; ok && json.Unmarshal(v, &d.DisplayScript) != nil {
			bad(p+".displayScript", "displayScript must be a string")
		}
		ts.Tools = append(ts.Tools, d)
	}
	if len(vs) > 0 {
		return nil, vs
	}
	return ts, nil
}

func checkAnnotations(raw json.RawMessage, d *ToolDef) string {
	if err := json.Unmarshal(raw, &d.Annotations); err != nil || d.Annotations == nil {
		return "annotations must be an object"
	}
	for k, v := range d.Annotations {
		switch k {
		case "requiresAuth":
			if _, ok := v.(string); !ok {
				return "annotations.requiresAuth must be a string"
			}
		case "readOnly", "destructive", "idempotent", "longRunning":
			if _, ok := v.(bool); !ok {
				return "annotations." + k + " must be a boolean"
			}
		}
	}
	return ""
}

// compileSchema compiles an inputSchema. Remote references are not
// fetched (localschema.NewCompiler).
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("not an object")
	}
	c := localschema.NewCompiler()
	const loc = "rap://toolset/inputSchema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

func str(m map[string]json.RawMessage, key string, dst *string) bool {
	v, ok := m[key]
	return ok && json.Unmarshal(v, dst) == nil && v[0] == '"'
}

func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	u := b.ResolveReference(r)
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("not http(s)")
	}
	return u.String(), nil
}
