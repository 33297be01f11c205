package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/suite/task"
)

// Invocation is one driver run: the task, the path of its task file and
// the contract's environment (base URLs, keys, scenario, dialect, stream).
type Invocation struct {
	Task     *task.Task
	TaskFile string
	Env      map[string]string
}

// Outcome is what a driver run produced.
type Outcome struct {
	Reply task.Reply
	// Err is set when the driver failed (non-zero exit, no reply line,
	// timeout); the judge reports it against final-text.
	Err error
	// Log holds the driver's stderr (its start and its end when it is
	// long: driverLog), for the report.
	Log string
}

// Driver runs tasks. Implementations: Command (a process, any language),
// URL (an HTTP endpoint), Func (a Go function, for go test).
type Driver interface {
	Drive(ctx context.Context, inv Invocation) Outcome
}

// Func adapts a Go function to Driver.
type Func func(ctx context.Context, inv Invocation) (finalText string, err error)

func (f Func) Drive(ctx context.Context, inv Invocation) Outcome {
	text, err := f(ctx, inv)
	return Outcome{Reply: task.Reply{FinalText: text}, Err: err}
}

// referenceDriver builds the in-process reference driver with a break
// ("" = none). Package suite/reference sets it: the suite itself does not
// link the official SDKs the reference driver is built on.
var referenceDriver func(brk string) (Driver, error)

// RegisterReference is how package suite/reference provides the
// in-process reference driver to `conform --reference`.
func RegisterReference(f func(brk string) (Driver, error)) { referenceDriver = f }

// referenceProcess is the reference driver as a process, for binaries
// without the in-process one: toolwire-refdriver next to the running
// executable, else on PATH.
func referenceProcess(brk string) (Driver, error) {
	name := "toolwire-refdriver"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), name); fileExists(p) {
			bin = p
		}
	}
	if bin == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return nil, fmt.Errorf("--reference runs %s, found neither next to this binary nor on PATH (go build -o bin/ ./cmd/toolwire-refdriver)", name)
		}
		bin = p
	}
	line := strconv.Quote(bin)
	if brk != "" {
		// Checked now, not found out from every run failing.
		list, err := exec.Command(bin, "--list-breaks").Output()
		if err != nil {
			return nil, fmt.Errorf("%s --list-breaks: %v", bin, err)
		}
		known := false
		for _, l := range strings.Split(string(list), "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == brk && !strings.HasPrefix(l, " ") {
				known = true
			}
		}
		if !known {
			return nil, fmt.Errorf("unknown reference break %q (see %s --list-breaks)", brk, name)
		}
		line += " --break " + strconv.Quote(brk)
	}
	return Command{Line: line}, nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Command runs a driver process: sh -c CMD (cmd /C on Windows) with the
// contract's environment added to the harness's own.
type Command struct {
	Line string
	// Dir is the working directory ("" = the current one).
	Dir string
}

func (c Command) Drive(ctx context.Context, inv Invocation) Outcome {
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", c.Line)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", c.Line)
	}
	cmd.Dir = c.Dir
	cmd.Env = os.Environ()
	for k, v := range inv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout bytes.Buffer
	stderr := &driverLog{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	// The process group is not ours to kill wholesale; WaitDelay bounds
	// how long a child holding the pipes can stall us after cancellation.
	cmd.WaitDelay = 2e9
	err := cmd.Run()
	out := Outcome{Log: stderr.String()}
	if ctx.Err() != nil {
		out.Err = fmt.Errorf("driver timed out (%v)", ctx.Err())
		return out
	}
	reply, perr := parseReply(stdout.Bytes())
	out.Reply = reply
	switch {
	case err != nil:
		out.Err = fmt.Errorf("driver failed: %v", err)
	case perr != nil:
		out.Err = perr
	case reply.Error != "":
		out.Err = errors.New("driver reported: " + reply.Error)
	}
	return out
}

// parseReply reads the last non-empty stdout line as {"final_text": …}.
func parseReply(stdout []byte) (task.Reply, error) {
	lines := strings.Split(strings.TrimRight(string(stdout), "\r\n\t "), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	var r task.Reply
	if last == "" {
		return r, errors.New(`driver printed nothing; want a last line {"final_text": "…"}`)
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal([]byte(last), &probe); err != nil {
		return r, fmt.Errorf(`driver's last stdout line is not JSON {"final_text": "…"}: %.200q`, last)
	}
	if _, ok := probe["final_text"]; !ok {
		if _, hasErr := probe["error"]; !hasErr {
			return r, fmt.Errorf(`driver's last stdout line has no "final_text": %.200q`, last)
		}
	}
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return r, fmt.Errorf("driver's reply: %v", err)
	}
	return r, nil
}

// URL posts the task (with the contract's environment in its env field) to
// a driver server and reads the same reply from the body.
type URL struct {
	Endpoint string
	Client   *http.Client
}

func (u URL) Drive(ctx context.Context, inv Invocation) Outcome {
	t := *inv.Task
	t.Env = inv.Env
	body, err := json.Marshal(&t)
	if err != nil {
		return Outcome{Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.Endpoint, bytes.NewReader(body))
	if err != nil {
		return Outcome{Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	client := u.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{Err: fmt.Errorf("driver timed out (%v)", ctx.Err())}
		}
		return Outcome{Err: fmt.Errorf("driver server: %v", err)}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	reply, perr := parseReply(b)
	out := Outcome{Reply: reply}
	switch {
	case resp.StatusCode != http.StatusOK:
		out.Err = fmt.Errorf("driver server answered %d: %.300s", resp.StatusCode, b)
	case perr != nil:
		out.Err = perr
	case reply.Error != "":
		out.Err = errors.New("driver reported: " + reply.Error)
	}
	return out
}
