package integrations

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// engine is a container engine that can both build and run here.
type engine struct {
	name    string
	global  []string // flags before the subcommand (podman --runtime runc)
	runArgs []string // extra `run` flags this machine needs
}

// findEngine returns the first engine on PATH whose daemon or runtime
// answers, or skips with every reason it found.
func findEngine(t *testing.T) engine {
	t.Helper()
	var why []string
	for _, name := range []string{"podman", "docker"} {
		if _, err := exec.LookPath(name); err != nil {
			why = append(why, name+" not on PATH")
			continue
		}
		if out, err := run(t, 30*time.Second, "", nil, name, "info"); err != nil {
			why = append(why, fmt.Sprintf("%s info: %v (%s)", name, err, lastLine(out)))
			continue
		}
		return engine{name: name}
	}
	if _, err := exec.LookPath("buildah"); err == nil {
		why = append(why, "buildah can build but not run the image")
	}
	t.Skip("no container engine that runs images: " + strings.Join(why, "; "))
	return engine{}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// runLadders are the ways to start a container, plainest first. A VM or
// nested container without CAP_SYS_RESOURCE refuses the engine's default
// rlimits, and crun refuses a hybrid cgroup layout that runc accepts.
func runLadders(e engine) []engine {
	var lim syscall.Rlimit
	ulimits := []string{}
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		n := min(lim.Cur, 65536)
		ulimits = append(ulimits, "--ulimit", fmt.Sprintf("nofile=%d:%d", n, n), "--ulimit", "nproc=4096:4096")
	}
	out := []engine{e, {name: e.name, runArgs: ulimits}}
	if _, err := exec.LookPath("runc"); err == nil && e.name == "podman" {
		out = append(out, engine{name: e.name, global: []string{"--runtime", "runc"}, runArgs: ulimits})
	}
	return out
}

func TestContainerImageServesAsNonRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a container image")
	}
	// A static build of every package from a cold cache plus an image
	// build takes minutes: opt-in, so make test stays short.
	if os.Getenv("TOOLWIRE_IMAGE_TEST") != "1" {
		t.Skip("builds a container image: run make image-test (TOOLWIRE_IMAGE_TEST=1)")
	}
	e := findEngine(t)
	root := repoRoot(t)
	bin := staticToolwireBinary(t)

	// The build context the Makefile makes: Containerfile, ignore file and
	// bin/image/toolwire.
	ctxDir := t.TempDir()
	for _, f := range []string{"Containerfile", ".containerignore", ".dockerignore"} {
		copyFile(t, filepath.Join(root, f), filepath.Join(ctxDir, f))
	}
	copyFile(t, bin, filepath.Join(ctxDir, "bin", "image", "toolwire"))
	os.Chmod(filepath.Join(ctxDir, "bin", "image", "toolwire"), 0o755)

	tag := fmt.Sprintf("localhost/toolwire-test:%d", time.Now().UnixNano())
	if out, err := run(t, 10*time.Minute, ctxDir, nil, e.name, "build", "-t", tag, "-f", "Containerfile", "."); err != nil {
		t.Fatalf("%s build: %v\n%s", e.name, err, out)
	}
	t.Cleanup(func() { run(t, time.Minute, "", nil, e.name, "rmi", "-f", tag) })

	if out, err := run(t, time.Minute, "", nil, e.name, "image", "inspect", "--format", "{{.Config.User}}", tag); err != nil || strings.TrimSpace(out) != "65532:65532" {
		t.Errorf("image user = %q (%v), want the non-root 65532:65532", strings.TrimSpace(out), err)
	}

	var id string
	var failures []string
	for _, way := range runLadders(e) {
		args := append(append(append([]string{}, way.global...), "run", "-d", "--rm", "-p", "127.0.0.1::8080", "-e", "TOOLWIRE_ADMIN_TOKEN=image-test-token"), way.runArgs...)
		out, err := run(t, 2*time.Minute, "", nil, e.name, append(args, tag)...)
		if err == nil {
			id, e = lastLine(out), way
			t.Logf("started with %s %s", e.name, strings.Join(args, " "))
			break
		}
		failures = append(failures, fmt.Sprintf("%s %s: %s", e.name, strings.Join(args, " "), lastLine(out)))
	}
	if id == "" {
		t.Skip("the image builds but no container can start on this machine:\n" + strings.Join(failures, "\n"))
	}
	t.Cleanup(func() { run(t, time.Minute, "", nil, e.name, append(e.global, "rm", "-f", id)...) })

	out, err := run(t, time.Minute, "", nil, e.name, append(e.global, "port", id, "8080/tcp")...)
	if err != nil {
		t.Fatalf("%s port: %v\n%s", e.name, err, out)
	}
	base := "http://" + strings.TrimSpace(strings.Split(strings.TrimSpace(out), "\n")[0])
	base = strings.Replace(base, "0.0.0.0", "127.0.0.1", 1)

	// The health check an orchestrator would run.
	var health map[string]any
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/_toolwire/health")
		if err == nil {
			json.NewDecoder(resp.Body).Decode(&health)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			logs, _ := run(t, time.Minute, "", nil, e.name, append(e.global, "logs", id)...)
			t.Fatalf("no health at %s: %v\n%s", base, err, logs)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if health["status"] != "ok" {
		t.Errorf("health: %v", health)
	}

	// The mock inside enforces its rules as it does outside.
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(
		`{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"call_x","content":"1"}]}`))
	req.Header.Set("Authorization", "Bearer image-test")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Toolwire-Rule") == "" {
		t.Errorf("orphan tool message: %d, X-Toolwire-Rule %q; want 400 naming the rule", resp.StatusCode, resp.Header.Get("X-Toolwire-Rule"))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
