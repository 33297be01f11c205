// Command toolwire-bench is the load benchmark: full tool-call turns per
// dialect, streamed and not, at several concurrencies, against the mock and,
// in the same run, against a bare net/http handler returning a fixed JSON
// body — the ceiling on this machine — and against the same handler
// answering the dialects' own requests with the mock's recorded answers
// (the mirror, mirror.go); and each dialect's requests carrying long
// conversations against the same handler reading the same body (long.go).
// Ratios, not absolute numbers, are the result: they survive a change of
// machine. `toolwire-bench compare` sets several builds' runs side by side
// (compare.go, scripts/bench-compare.sh).
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

func main() {
	if role := os.Getenv(serveEnv); role != "" {
		serveChild(role)
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		if err := runCompare(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "toolwire-bench:", err)
			os.Exit(2)
		}
		return
	}
	var cfg config
	flag.StringVar(&cfg.out, "out", "reports/out/bench.json", "where to write bench.json")
	flag.DurationVar(&cfg.each, "duration", 2*time.Second, "how long each load run lasts")
	flag.StringVar(&cfg.concurrency, "concurrency", "1,16,64", "concurrency levels")
	flag.IntVar(&cfg.soakRequests, "soak-requests", 200000, "requests in the soak")
	flag.IntVar(&cfg.soakSessions, "soak-sessions", 10000, "sessions the soak spreads them over")
	flag.Int64Var(&cfg.journalBudget, "journal-budget", session.DefaultLimits().JournalBudget, "the mock's --journal-budget (bytes), to see what journaling costs")
	flag.BoolVar(&cfg.inProcess, "in-process", false, "run the servers inside the load generator's process (allocations and memory then include the client's)")
	flag.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write the mock server process's CPU profile here")
	flag.StringVar(&cfg.dialects, "dialects", "", "comma-separated dialects to load (default: all)")
	flag.BoolVar(&cfg.noStream, "no-stream", false, "skip the streamed runs")
	flag.BoolVar(&varyText, "vary", false, "give every request a user text of its own (no two bodies the same, the tools repeated), as an agent's first turns are")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds of baseline-then-dialects for the headline ratios (median reported); 0 = take them from the sweep")
	flag.StringVar(&cfg.longRounds, "long-rounds", "0,10,100,400", "long conversations: earlier tool rounds in each measured request, comma-separated (empty: skip the table)")
	flag.DurationVar(&cfg.longEach, "long-duration", time.Second, "long conversations: how long each run (baseline or mock, one dialect, one size) lasts")
	flag.IntVar(&cfg.longConcurrency, "long-concurrency", 16, "long conversations: concurrent workers, each posting in its own session")
	flag.IntVar(&cfg.longReps, "long-reps", 3, "long conversations: repetitions of every baseline/mock pair (median reported)")
	flag.BoolVar(&cfg.longOnly, "long-only", false, "measure only the long-conversation table (no sweep, headline or soak)")
	flag.StringVar(&cfg.mockURL, "mock-url", "", "load an already running mock at this URL (e.g. `toolwire serve` of another build) instead of starting one; its allocations are then not reported, its CPU time and memory only with --mock-pid")
	flag.IntVar(&cfg.mockPID, "mock-pid", 0, "with --mock-url: the mock's process id, whose CPU time and memory are read from /proc (Linux)")
	flag.Parse()
	res, err := run(cfg, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolwire-bench:", err)
		os.Exit(2)
	}
	if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "toolwire-bench:", err)
		os.Exit(2)
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(cfg.out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "toolwire-bench:", err)
		os.Exit(2)
	}
	fmt.Println("wrote", cfg.out)
}

type config struct {
	out           string
	each          time.Duration
	concurrency   string
	soakRequests  int
	soakSessions  int
	journalBudget int64
	inProcess     bool
	cpuProfile    string
	dialects      string
	noStream      bool
	rounds        int

	longRounds      string
	longEach        time.Duration
	longConcurrency int
	longReps        int
	longOnly        bool
	mockURL         string
	mockPID         int
}

type roundResult struct {
	run                         Run
	ratio, cpuRatio             float64
	mirrorRatio, mirrorCPURatio float64
}

// Result is bench.json.
type Result struct {
	Machine     string                  `json:"machine"`
	BaselineRPS float64                 `json:"baseline_rps"` // at the top concurrency (median over the rounds)
	Rounds      int                     `json:"rounds,omitempty"`
	Dialects    map[string]DialectStats `json:"dialects"`
	Runs        []Run                   `json:"runs"`
	Soak        Soak                    `json:"soak"`
	// Long is the long-conversation table (long.go).
	Long *LongTable `json:"long_conversations,omitempty"`
	// MockURL is the external mock loaded (--mock-url), if any.
	MockURL string `json:"mock_url,omitempty"`
}

// DialectStats is the headline per dialect: non-streaming at the highest
// concurrency, and its ratio to the baseline at the same concurrency.
type DialectStats struct {
	RPS   float64 `json:"rps"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Ratio float64 `json:"ratio"`
	// CPURatio is the baseline's server CPU time per request over the
	// dialect's (median round): what the ratio would be if the load
	// generator took no CPU from the servers.
	CPURatio float64 `json:"cpu_ratio,omitempty"`
	// RoundRatios are the ratios of every headline round, sorted; Ratio
	// is their median.
	RoundRatios []float64 `json:"round_ratios,omitempty"`
	// MirrorRatio is the dialect's req/s over the mirror's (mirror.go: a
	// bare handler answering the same requests with the mock's recorded
	// answers), median of the rounds: what the mock's own work costs.
	// MirrorCPURatio is the mirror's server CPU per request over the
	// dialect's.
	MirrorRatio       float64   `json:"mirror_ratio,omitempty"`
	MirrorCPURatio    float64   `json:"mirror_cpu_ratio,omitempty"`
	MirrorRoundRatios []float64 `json:"mirror_round_ratios,omitempty"`
}

// Run is one load run.
type Run struct {
	Target      string  `json:"target"` // dialect or "baseline"
	Stream      bool    `json:"stream"`
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	RPS         float64 `json:"rps"`
	P50         float64 `json:"p50_ms"`
	P99         float64 `json:"p99_ms"`
	AllocsPerOp float64 `json:"allocs_per_request"` // the server process's (with --in-process: client's too)
	CPUPerOp    float64 `json:"cpu_us_per_request"` // the server process's CPU time (with --in-process: client's too)
	RSSMB       float64 `json:"rss_mb"`             // the server process's
}

// Soak is the memory-flatness run.
type Soak struct {
	Requests   int     `json:"requests"`
	Sessions   int     `json:"sessions"`
	RSSMBStart float64 `json:"rss_mb_start"` // after the first 10,000 requests
	RSSMBEnd   float64 `json:"rss_mb_end"`
}

func run(cfg config, w io.Writer) (*Result, error) {
	var levels []int
	for _, s := range strings.Split(cfg.concurrency, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad concurrency %q", s)
		}
		levels = append(levels, n)
	}
	// The limits a user gets from `toolwire serve`: the soak measures them.
	limits := session.DefaultLimits()
	if cfg.journalBudget > 0 {
		limits.JournalBudget = cfg.journalBudget
	}
	longRounds, err := parseRounds(cfg.longRounds)
	if err != nil {
		return nil, err
	}
	if cfg.longOnly && len(longRounds) == 0 {
		return nil, fmt.Errorf("--long-only with no --long-rounds measures nothing")
	}
	if len(longRounds) > 0 && (cfg.longReps < 1 || cfg.longConcurrency < 1 || cfg.longEach <= 0) {
		return nil, fmt.Errorf("--long-reps, --long-concurrency and --long-duration must be positive")
	}
	if cfg.mockPID != 0 && cfg.mockURL == "" {
		return nil, fmt.Errorf("--mock-pid is for the process of --mock-url")
	}
	var mock *server
	if cfg.mockURL != "" {
		mock = &server{url: strings.TrimRight(cfg.mockURL, "/"), stop: func() {}, pid: cfg.mockPID}
	} else if mock, err = startServer(cfg, "mock", limits); err != nil {
		return nil, err
	}
	defer mock.stop()
	base, err := startServer(cfg, "baseline", limits)
	if err != nil {
		return nil, err
	}
	defer base.stop()
	mockURL, baseURL := mock.url, base.url

	res := &Result{Machine: fmt.Sprintf("%s/%s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()), Dialects: map[string]DialectStats{}, MockURL: cfg.mockURL}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	loadBaseline := func(c int) Run {
		return load(client, base, cfg.each, c, "baseline", false, func(worker, i int) *http.Request {
			req, _ := http.NewRequest(http.MethodPost, baseURL+"/v1/chat/completions", strings.NewReader(`{}`))
			return req
		})
	}
	// loadTurns sends a dialect's turns to srv: the mock, or the
	// baseline as its mirror.
	loadTurns := func(srv *server, target string, d conv.Dialect, stream bool, c int) Run {
		return load(client, srv, cfg.each, c, target, stream, func(worker, i int) *http.Request {
			return turnRequest(srv.url, d, stream, fmt.Sprintf("bench-%s-%d", d, worker), i)
		})
	}
	loadDialect := func(d conv.Dialect, stream bool, c int) Run { return loadTurns(mock, string(d), d, stream, c) }
	loadMirror := func(d conv.Dialect, c int) Run { return loadTurns(base, "mirror "+string(d), d, false, c) }
	var dialects []conv.Dialect
	for _, d := range conv.Dialects {
		if cfg.dialects == "" || slices.Contains(strings.Split(cfg.dialects, ","), string(d)) {
			dialects = append(dialects, d)
		}
	}

	if cfg.longOnly {
		if res.Long, err = runLong(client, mock, base, dialects, longRounds, cfg.longEach, cfg.longConcurrency, cfg.longReps); err != nil {
			return nil, err
		}
		printLong(w, res.Long)
		return res, nil
	}

	// The sweep: every dialect, streamed and not, at every concurrency.
	baseline := map[int]Run{}
	for _, c := range levels {
		baseline[c] = loadBaseline(c)
		res.Runs = append(res.Runs, baseline[c])
	}
	top := levels[len(levels)-1]
	res.BaselineRPS = baseline[top].RPS
	for _, d := range dialects {
		for _, stream := range []bool{false, true} {
			if stream && cfg.noStream {
				continue
			}
			for _, c := range levels {
				r := loadDialect(d, stream, c)
				res.Runs = append(res.Runs, r)
				if !stream && c == top {
					res.Dialects[string(d)] = DialectStats{RPS: r.RPS, P50: r.P50, P99: r.P99, Ratio: round(r.RPS / baseline[top].RPS)}
				}
			}
		}
	}

	// The headline: rounds of baseline-then-each-dialect at the top
	// concurrency, each ratio taken against the baseline measured just
	// before it, and the median round reported — a machine whose speed
	// drifts during the run moves both sides of each ratio alike.
	if cfg.rounds > 0 {
		if err := recordMirror(client, mockURL, baseURL, dialects); err != nil {
			return nil, err
		}
		perDialect := map[conv.Dialect][]roundResult{}
		var bases []float64
		for range cfg.rounds {
			b := loadBaseline(top)
			bases = append(bases, b.RPS)
			for _, d := range dialects {
				m := loadMirror(d, top)
				r := loadDialect(d, false, top)
				rr := roundResult{run: r, ratio: r.RPS / b.RPS, mirrorRatio: r.RPS / m.RPS}
				if r.CPUPerOp > 0 {
					rr.cpuRatio = b.CPUPerOp / r.CPUPerOp
					rr.mirrorCPURatio = m.CPUPerOp / r.CPUPerOp
				}
				res.Runs = append(res.Runs, m)
				perDialect[d] = append(perDialect[d], rr)
			}
		}
		res.BaselineRPS = median(bases)
		res.Rounds = cfg.rounds
		for _, d := range dialects {
			rs := perDialect[d]
			slices.SortFunc(rs, func(a, b roundResult) int { return cmp.Compare(a.ratio, b.ratio) })
			mid := rs[len(rs)/2]
			st := DialectStats{RPS: mid.run.RPS, P50: mid.run.P50, P99: mid.run.P99, Ratio: round(mid.ratio)}
			var cpu, mirror, mirrorCPU []float64
			for _, r := range rs {
				st.RoundRatios = append(st.RoundRatios, round(r.ratio))
				cpu = append(cpu, r.cpuRatio)
				mirror = append(mirror, r.mirrorRatio)
				mirrorCPU = append(mirrorCPU, r.mirrorCPURatio)
			}
			st.CPURatio = round(median(cpu))
			st.MirrorRatio, st.MirrorCPURatio = round(median(mirror)), round(median(mirrorCPU))
			for _, m := range mirror { // in order: median sorted them
				st.MirrorRoundRatios = append(st.MirrorRoundRatios, round(m))
			}
			res.Dialects[string(d)] = st
		}
	}
	if len(longRounds) > 0 {
		if res.Long, err = runLong(client, mock, base, dialects, longRounds, cfg.longEach, cfg.longConcurrency, cfg.longReps); err != nil {
			return nil, err
		}
	}
	res.Soak = soak(client, mock, cfg.soakRequests, cfg.soakSessions)
	printTable(w, res)
	if res.Long != nil {
		printLong(w, res.Long)
	}
	return res, nil
}

// load runs workers for d, each sending requests back to back.
func load(client *http.Client, srv *server, d time.Duration, workers int, target string, stream bool, mk func(worker, i int) *http.Request) Run {
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      atomic.Int64
		wg        sync.WaitGroup
	)
	before := srv.stats(client, true)
	deadline := time.Now().Add(d)
	start := time.Now()
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			var mine []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				t0 := time.Now()
				resp, err := client.Do(mk(wk, i))
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}(wk)
	}
	wg.Wait()
	elapsed := time.Since(start)
	after := srv.stats(client, false)
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	n := len(latencies)
	r := Run{Target: target, Stream: stream, Concurrency: workers, Requests: n, Errors: int(errs.Load()), RSSMB: after.RSSMB}
	if n > 0 {
		r.RPS = round(float64(n) / elapsed.Seconds())
		r.P50 = ms(latencies[n/2])
		r.P99 = ms(latencies[min(n-1, n*99/100)])
		r.AllocsPerOp = round(float64(after.Mallocs-before.Mallocs) / float64(n))
		r.CPUPerOp = round(float64(after.CPUMicros-before.CPUMicros) / float64(n))
	}
	return r
}

// soak spreads requests over many sessions and compares resident memory
// after the first 10,000 requests with the end.
func soak(client *http.Client, srv *server, requests, sessions int) Soak {
	s := Soak{Requests: requests, Sessions: sessions}
	const workers = 16
	var next atomic.Int64
	var wg sync.WaitGroup
	var startOnce sync.Once
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= requests {
					return
				}
				if i == min(10000, requests-1) {
					startOnce.Do(func() { s.RSSMBStart = srv.stats(client, true).RSSMB })
				}
				d := conv.Dialects[i%len(conv.Dialects)]
				resp, err := client.Do(turnRequest(srv.url, d, false, fmt.Sprintf("soak-%d", i%sessions), i))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	wg.Wait()
	s.RSSMBEnd = srv.stats(client, true).RSSMB
	return s
}

func printTable(w io.Writer, res *Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "machine: %s\n", res.Machine)
	fmt.Fprintln(tw, "target\tstream\tconc\treq/s\tp50 ms\tp99 ms\tallocs/req\tCPU µs/req\tRSS MB\terrors\t")
	for _, r := range res.Runs {
		fmt.Fprintf(tw, "%s\t%v\t%d\t%.0f\t%.2f\t%.2f\t%.0f\t%.1f\t%.1f\t%d\t\n", r.Target, r.Stream, r.Concurrency, r.RPS, r.P50, r.P99, r.AllocsPerOp, r.CPUPerOp, r.RSSMB, r.Errors)
	}
	_ = tw.Flush()
	for _, d := range conv.Dialects {
		st := res.Dialects[string(d)]
		fmt.Fprintf(w, "ratio %-17s %.2f of baseline %.0f req/s (server CPU per request: %.2f of the baseline's)", d, st.Ratio, res.BaselineRPS, st.CPURatio)
		if st.MirrorRatio > 0 {
			fmt.Fprintf(w, "; %.2f of the mirror (CPU %.2f)", st.MirrorRatio, st.MirrorCPURatio)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "soak: %d requests over %d sessions, RSS %.1f MB after 10k → %.1f MB at the end\n", res.Soak.Requests, res.Soak.Sessions, res.Soak.RSSMBStart, res.Soak.RSSMBEnd)
}

func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return round(float64(m.Sys) / (1 << 20))
	}
	return vmRSS(string(b))
}

// vmRSS is the resident memory in MB a /proc/PID/status reports.
func vmRSS(status string) float64 {
	for _, line := range strings.Split(status, "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return round(kb / 1024)
		}
	}
	return 0
}

// median sorts xs and returns its middle element.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func ms(d time.Duration) float64 { return round(float64(d.Microseconds()) / 1000) }
func round(f float64) float64    { return float64(int64(f*100+0.5)) / 100 }
