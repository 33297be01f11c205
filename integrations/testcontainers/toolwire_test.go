package toolwiretc_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/testcontainers/testcontainers-go"

	toolwiretc "github.com/toolwire/toolwire/integrations/testcontainers"
)

// recordingTB collects a helper's failures instead of failing the test.
type recordingTB struct {
	*testing.T
	failures []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.failures = append(r.failures, format)
}

func TestContainerJournalsViolations(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	image := os.Getenv("TOOLWIRE_IMAGE")
	if image == "" {
		image = toolwiretc.DefaultImage
	}
	c, err := toolwiretc.Run(t.Context(), image)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		if strings.Contains(err.Error(), "pull") || strings.Contains(err.Error(), "not found") {
			t.Skipf("image %s is not present (build it with `make image`, or set TOOLWIRE_IMAGE): %v", image, err)
		}
		t.Fatal(err)
	}

	post := func(key, body string) int {
		req, _ := http.NewRequest(http.MethodPost, c.OpenAIBaseURL()+"/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post("clean", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`); code != 200 {
		t.Fatalf("clean request: %d", code)
	}
	c.RequireNoViolations(t, "clean")

	if code := post("broken", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"1"}]}`); code != 400 {
		t.Fatalf("orphan tool message: %d, want 400", code)
	}
	fake := &recordingTB{T: t}
	c.RequireNoViolations(fake, "broken")
	if len(fake.failures) != 1 {
		t.Fatalf("want one failure for the broken session, got %q", fake.failures)
	}
}
