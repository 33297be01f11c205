package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// The servers under load run in their own processes, as `toolwire serve`
// does: the load generator's allocations and garbage collection then do
// not count against the server, and the allocation and memory figures are
// the server's alone. The child is this same binary (or test binary) with
// serveEnv set; it prints its URL on stdout and exits when stdin closes.
const (
	serveEnv  = "TOOLWIRE_BENCH_SERVE"  // "mock" or "baseline"
	limitsEnv = "TOOLWIRE_BENCH_LIMITS" // session.Limits as JSON
	cpuEnv    = "TOOLWIRE_BENCH_CPUPROFILE"
	statsPath = "/_bench/stats"
)

// fixedBody is what the baseline answers to anything it has no recorded
// answer for (mirror.go): a small Chat Completions reply.
var fixedBody = []byte(`{"id":"baseline","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`)

// server is one target under load.
type server struct {
	url  string
	stop func()
	// pid, for a mock this program did not start (--mock-url), is its
	// process: its CPU time and memory are read from /proc, as it has no
	// stats endpoint.
	pid int
}

// serverStats is what a server process reports about itself.
type serverStats struct {
	Mallocs uint64  `json:"mallocs"`
	RSSMB   float64 `json:"rss_mb"`
	// CPUMicros is the process's user+system CPU time so far.
	CPUMicros int64 `json:"cpu_us"`
}

// startServer starts the mock or the baseline, in a child process unless
// cfg.inProcess.
func startServer(cfg config, role string, limits session.Limits) (*server, error) {
	if cfg.inProcess {
		url, stop, err := listen(handlerFor(role, limits))
		return &server{url: url, stop: stop}, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	lb, _ := json.Marshal(limits)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveEnv+"="+role, limitsEnv+"="+string(lb))
	if role == "mock" && cfg.cpuProfile != "" {
		cmd.Env = append(cmd.Env, cpuEnv+"="+cfg.cpuProfile)
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://") {
		stop()
		return nil, fmt.Errorf("%s server did not start: %q %v", role, line, err)
	}
	return &server{url: strings.TrimSpace(line), stop: stop}, nil
}

// serveChild is the child process: serve until stdin closes.
func serveChild(role string) {
	limits := session.DefaultLimits()
	if s := os.Getenv(limitsEnv); s != "" {
		if err := json.Unmarshal([]byte(s), &limits); err != nil {
			fmt.Fprintln(os.Stderr, "toolwire-bench: bad", limitsEnv+":", err)
			os.Exit(2)
		}
	}
	url, stop, err := listen(handlerFor(role, limits))
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolwire-bench:", err)
		os.Exit(2)
	}
	if path := os.Getenv(cpuEnv); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "toolwire-bench: cpu profile:", err)
			os.Exit(2)
		}
		defer func() { pprof.StopCPUProfile(); _ = f.Close() }()
	}
	fmt.Println(url)
	_, _ = io.Copy(io.Discard, os.Stdin)
	stop()
}

// handlerFor is the target's handler plus the stats endpoint.
func handlerFor(role string, limits session.Limits) http.Handler {
	var h http.Handler
	if role == "mock" {
		// The limits a user gets from `toolwire serve`.
		h = mockprovider.New(mockprovider.Options{Limits: limits})
	} else {
		h = http.HandlerFunc(serveBaseline)
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	if role != "mock" {
		mux.HandleFunc(cannedPath, setCanned)
	}
	mux.HandleFunc(statsPath, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("gc") == "1" {
			runtime.GC()
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(serverStats{Mallocs: m.Mallocs, RSSMB: rssMB(), CPUMicros: cpuMicros()})
	})
	return mux
}

// stats asks the server process about itself, after a collection if gc.
func (s *server) stats(client *http.Client, gc bool) serverStats {
	if s.pid > 0 {
		return procStats(s.pid)
	}
	u := s.url + statsPath
	if gc {
		u += "?gc=1"
	}
	var st serverStats
	resp, err := client.Get(u)
	if err != nil {
		return st
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&st)
	return st
}

func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Shutdown(context.Background()) }, nil
}

// procStats is another process's CPU time and resident memory, from
// /proc (Linux; zero elsewhere). Its allocations are not known.
func procStats(pid int) serverStats {
	var st serverStats
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st
	}
	st.CPUMicros = statCPUMicros(b)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		st.RSSMB = vmRSS(string(b))
	}
	return st
}

// statCPUMicros is the user + system time in a /proc/PID/stat line.
func statCPUMicros(stat []byte) int64 {
	// The fields after the command name, which is in parentheses and may
	// hold spaces and parentheses: state, then utime and stime as the
	// 12th and 13th.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	sys, _ := strconv.ParseInt(f[12], 10, 64)
	// In clock ticks of USER_HZ, 100 on every Linux build Go supports.
	return (ut + sys) * 10_000
}

// cpuMicros is the process's CPU time (user + system): per request, it
// measures the server's cost apart from the load generator sharing the
// machine, and drifts far less than throughput does.
func cpuMicros() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano()/1000 + ru.Stime.Nano()/1000
}
