package integrations

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// repoRoot is the checkout this package sits in.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildLog  []byte
)

// toolwireBinary is $TOOLWIRE_BIN when set, else the static build.
func toolwireBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TOOLWIRE_BIN"); p != "" {
		return p
	}
	return staticToolwireBinary(t)
}

// staticToolwireBinary builds cmd/toolwire once per test process with the
// flags `make image` uses: the image needs a static binary.
func staticToolwireBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toolwire-integrations-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "toolwire")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", builtBin, "./cmd/toolwire")
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		buildLog, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/toolwire: %v\n%s", buildErr, buildLog)
	}
	return builtBin
}

// run runs a command with a deadline and returns its combined output.
func run(t testing.TB, timeout time.Duration, dir string, env []string, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
