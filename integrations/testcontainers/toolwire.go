// Package toolwiretc runs the toolwire container image under
// testcontainers-go, for Go tests that want the mock as a container (the
// same image CI service containers use) rather than in process
// (mockprovider.NewTestServer needs no engine and is faster).
//
// It is its own module so the main toolwire module does not depend on
// testcontainers-go and the Docker client.
package toolwiretc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// DefaultImage is the tag `make image` builds.
const DefaultImage = "toolwire:dev"

// AdminTokenHeader carries the admin token on admin API requests.
const AdminTokenHeader = "X-Toolwire-Admin-Token"

// Container is a running toolwire mock.
type Container struct {
	testcontainers.Container
	// URL is the mock's base URL on the host, e.g. http://127.0.0.1:32768.
	URL string
	// AdminToken is what the admin API (/_toolwire/) wants in
	// AdminTokenHeader; Run generates it and passes it as
	// TOOLWIRE_ADMIN_TOKEN.
	AdminToken string
}

// Run starts the image (DefaultImage when image is "") and waits until
// GET /_toolwire/health answers. Customizers (testcontainers.WithEnv,
// WithCmdArgs for extra serve flags such as "--lenient", …) apply last.
func Run(ctx context.Context, image string, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	if image == "" {
		image = DefaultImage
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	base := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts("8080/tcp"),
		testcontainers.WithEnv(map[string]string{"TOOLWIRE_ADMIN_TOKEN": token}),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/_toolwire/health").WithPort("8080/tcp").WithStartupTimeout(60 * time.Second)),
	}
	ctr, err := testcontainers.Run(ctx, image, append(base, opts...)...)
	if ctr == nil {
		return nil, fmt.Errorf("toolwire container %s: %w", image, err)
	}
	// A container that started but failed its wait is returned too, so
	// the caller can read its logs and terminate it.
	c := &Container{Container: ctr, AdminToken: token}
	if err != nil {
		return c, fmt.Errorf("toolwire container %s: %w", image, err)
	}
	endpoint, err := ctr.PortEndpoint(ctx, "8080/tcp", "http")
	if err != nil {
		return c, err
	}
	c.URL = endpoint
	return c, nil
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// OpenAIBaseURL is the base URL for the OpenAI SDKs (it includes /v1).
func (c *Container) OpenAIBaseURL() string { return c.URL + "/v1" }

// AnthropicBaseURL is the base URL for the Anthropic SDKs.
func (c *Container) AnthropicBaseURL() string { return c.URL }

// GeminiBaseURL is the base URL for the Gemini SDKs.
func (c *Container) GeminiBaseURL() string { return c.URL }

// Violation is one rule breach the mock journaled.
type Violation struct {
	Rule    string `json:"rule"`
	Level   string `json:"level"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func (v Violation) String() string {
	path := v.Path
	if path == "" {
		path = "(request)"
	}
	return fmt.Sprintf("%s at %s: %s", v.Rule, path, v.Message)
}

// Entry is one journaled exchange, as the admin API returns it (the
// fields a test usually reads; the request and answer stay raw).
type Entry struct {
	Seq        int             `json:"seq"`
	Dialect    string          `json:"dialect"`
	Method     string          `json:"method"`
	Path       string          `json:"path"`
	Status     int             `json:"status"`
	Request    json.RawMessage `json:"request,omitempty"`
	Response   json.RawMessage `json:"response,omitempty"`
	Violations []Violation     `json:"violations,omitempty"`
	Answered   string          `json:"answered_rule,omitempty"`
}

// Journal returns a session's exchanges, oldest first (none for a session
// that made no request).
func (c *Container) Journal(ctx context.Context, key string) ([]Entry, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"/_toolwire/sessions/"+url.PathEscape(key)+"/journal", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(AdminTokenHeader, c.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("toolwire journal of %q: HTTP %d", key, resp.StatusCode)
	}
	var body struct {
		Entries []Entry `json:"entries"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, err
	}
	return body.Entries, nil
}

// MustViolations returns the MUST violations a session's journal holds.
func (c *Container) MustViolations(ctx context.Context, key string) ([]Violation, error) {
	entries, err := c.Journal(ctx, key)
	if err != nil {
		return nil, err
	}
	var out []Violation
	for _, e := range entries {
		for _, v := range e.Violations {
			if v.Level == "MUST" {
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// TB is the part of testing.TB the helpers use.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Context() context.Context
}

// RequireNoViolations fails the test on any MUST violation of the session,
// naming the rule, JSON path and message of each.
func (c *Container) RequireNoViolations(t TB, key string) {
	t.Helper()
	vs, err := c.MustViolations(t.Context(), key)
	if err != nil {
		t.Errorf("toolwire: %v", err)
		return
	}
	if len(vs) == 0 {
		return
	}
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = "  " + v.String()
	}
	t.Errorf("toolwire: session %q broke %d MUST rule(s):\n%s", key, len(vs), strings.Join(lines, "\n"))
}
