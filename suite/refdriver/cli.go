package refdriver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/toolwire/toolwire/suite/task"
)

// Handler serves the --driver-url contract: POST a task (its env field
// holding the contract's variables), get {"final_text": …} back, or
// {"error": …} with status 200 when the run failed (the harness judges
// it), 400 for a body that is not a task.
func Handler(d *Driver) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST a task", http.StatusMethodNotAllowed)
			return
		}
		var t task.Task
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 16<<20)).Decode(&t); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(task.Reply{Error: "not a task: " + err.Error()})
			return
		}
		env := EnvFromMap(func(k string) string { return t.Env[k] })
		text, err := d.Run(r.Context(), env, &t)
		reply := task.Reply{FinalText: text}
		if err != nil {
			reply.Error = err.Error()
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reply)
	})
}

// Main is the toolwire-refdriver command on the dialects' loops: run the
// task named by TOOLWIRE_TASK and print {"final_text": …}, or serve the
// --driver-url contract with --serve ADDR.
func Main(dialects []Dialect, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolwire-refdriver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brk := fs.String("break", os.Getenv(task.EnvBreak), "make one deliberate mistake (see --list-breaks)")
	serve := fs.String("serve", "", "serve the --driver-url contract on ADDR (e.g. 127.0.0.1:8765)")
	list := fs.Bool("list-breaks", false, "list the break variants and exit")
	timeout := fs.Duration("timeout", 2*time.Minute, "give up on a task after this long")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *list {
		// The kill matrix as declared: each variant, then the rules it
		// must fail (and may fail) under each mock configuration.
		for _, b := range Breaks(dialects) {
			fmt.Fprintf(stdout, "%-28s %s\n", b.Name, b.Description)
			for _, e := range Expectations(dialects) {
				if e.Break != b.Name {
					continue
				}
				mock := ""
				if e.StrictRoles {
					mock = " (mock --strict-roles)"
				}
				if e.GeminiCallIDs {
					mock = " (mock: Gemini call ids)"
				}
				fails := strings.Join(e.Fails, ", ")
				if fails == "" {
					fails = "nothing (a correct variant)"
				}
				fmt.Fprintf(stdout, "%-28s   fails%s: %s\n", "", mock, fails)
				if len(e.MayFail) > 0 {
					fmt.Fprintf(stdout, "%-28s   may fail: %s\n", "", strings.Join(e.MayFail, ", "))
				}
			}
		}
		return 0
	}
	if _, ok := LookupBreak(dialects, *brk); !ok {
		fmt.Fprintf(stderr, "toolwire-refdriver: unknown break %q (see --list-breaks)\n", *brk)
		return 2
	}
	d := &Driver{Break: Break(*brk), Dialects: dialects}
	if *serve != "" {
		ln, err := net.Listen("tcp", *serve)
		if err != nil {
			fmt.Fprintln(stderr, "toolwire-refdriver:", err)
			return 2
		}
		fmt.Fprintf(stderr, "toolwire-refdriver: serving the driver contract on http://%s\n", ln.Addr())
		srv := &http.Server{Handler: Handler(d), ReadHeaderTimeout: 10 * time.Second}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		go func() { <-ctx.Done(); _ = srv.Close() }()
		if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
			fmt.Fprintln(stderr, "toolwire-refdriver:", err)
			return 1
		}
		return 0
	}
	path := os.Getenv(task.EnvTask)
	if path == "" {
		fmt.Fprintln(stderr, "toolwire-refdriver: TOOLWIRE_TASK is not set (run me from `toolwire conform --driver`)")
		return 2
	}
	b, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(stderr, "toolwire-refdriver:", err)
		return 2
	}
	var t task.Task
	if err := json.Unmarshal(b, &t); err != nil {
		fmt.Fprintln(stderr, "toolwire-refdriver: task:", err)
		return 2
	}
	if s := os.Getenv(task.EnvStream); s != "" {
		t.Stream = s == "1"
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	text, err := d.Run(ctx, EnvFromOS(), &t)
	if err != nil {
		fmt.Fprintln(stderr, "toolwire-refdriver:", err)
		return 1
	}
	out, _ := json.Marshal(task.Reply{FinalText: text})
	fmt.Fprintln(stdout, string(out))
	return 0
}
