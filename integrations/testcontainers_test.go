package integrations

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTestcontainersModule runs the tests of the testcontainers-go module
// (its own Go module, so `go test ./...` here does not reach it) against
// the image `make image` built, where a Docker API answers: Docker, or
// `podman system service` with DOCKER_HOST pointing at its socket.
func TestTestcontainersModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the testcontainers-go module and runs a container")
	}
	host := os.Getenv("DOCKER_HOST")
	if host == "" {
		if _, err := os.Stat("/var/run/docker.sock"); err != nil {
			t.Skip("no Docker API: DOCKER_HOST is unset and /var/run/docker.sock is absent (podman: `podman system service` and DOCKER_HOST=unix://SOCKET)")
		}
	}
	dir := filepath.Join(repoRoot(t), "integrations", "testcontainers")
	env := []string{}
	if os.Getenv("TOOLWIRE_IMAGE") == "" {
		env = append(env, "TOOLWIRE_IMAGE=localhost/toolwire:dev")
	}
	out, err := run(t, 20*time.Minute, dir, env, "go", "test", "-count=1", "-v", "./...")
	if err != nil {
		t.Fatalf("go test in integrations/testcontainers: %v\n%s", err, out)
	}
	if strings.Contains(out, "--- SKIP") {
		t.Skipf("the module's test skipped:\n%s", out)
	}
}
