package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/models"
	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/record"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// ruleFlags binds the options the reference marks as inferred.
func ruleFlags(cmd *cobra.Command, o *rules.Options) {
	d := rules.DefaultOptions()
	*o = d
	f := cmd.Flags()
	f.BoolVar(&o.Lenient, "lenient", false, "journal MUST violations but answer normally")
	f.BoolVar(&o.StrictRoles, "strict-roles", false, "answer Anthropic role alternation / first-message-user breaches with the historical 400")
	f.StringVar(&o.OpenAIToolParam, "openai-tool-param", d.OpenAIToolParam, `param of OpenAI's unanswered-tool-call error: "role" (messages.[N].role) or "messages"`)
	f.StringVar(&o.GeminiRoleMessage, "gemini-role-message", d.GeminiRoleMessage, `Gemini invalid-role wording: "classic" or "v3.6"`)
	f.StringVar(&o.ThoughtSignatures, "thought-signatures", d.ThoughtSignatures, `Gemini thought-signature enforcement: "auto" (gemini-3* models), "always" or "never"`)
}

func newServeCommand() *cobra.Command {
	var (
		addr      string
		fixtures  []string
		opts      mockprovider.Options
		limits    = session.DefaultLimits()
		bodyLimit int64
		drain     time.Duration
		recordDir string
		recordMax int64
		upstream  string
		replayDir string
		rapRev    string
		rapAllow  []string
		logFormat string
		logLevel  string
		modelFile string
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the mock provider: OpenAI Chat and Responses, Anthropic Messages and Gemini on one port",
		RunE: func(cmd *cobra.Command, args []string) error {
			set, err := mockprovider.LoadScenarios(fixtures...)
			if err != nil {
				return err
			}
			opts.Scenarios, opts.Limits, opts.BodyLimit = set, limits, bodyLimit
			if opts.RAP.Revision, err = rap.ParseRevision(rapRev); err != nil {
				return err
			}
			if opts.RAP.Targets, err = rap.ParseAllow(rapAllow); err != nil {
				return err
			}
			if opts.AdminToken == "" {
				opts.AdminToken = os.Getenv(AdminTokenEnv)
			}
			if opts.Logger, err = newLogger(cmd.ErrOrStderr(), logFormat, logLevel); err != nil {
				return err
			}
			if modelFile != "" {
				if opts.Models, err = models.ParseFile(modelFile); err != nil {
					return fmt.Errorf("--models: %w", err)
				}
			}
			switch {
			case recordDir != "" && replayDir != "":
				return errors.New("--record and --replay exclude each other")
			case recordDir != "":
				up, err := record.ParseUpstreams(upstream)
				if err != nil {
					return err
				}
				if len(up) == 0 {
					return errors.New("--record needs --upstream openai=URL,anthropic=URL,gemini=URL,bedrock=URL")
				}
				if recordMax <= 0 {
					return fmt.Errorf("--record-limit %d: want a positive number of bytes", recordMax)
				}
				if opts.Recorder, err = record.NewRecorder(recordDir, up); err != nil {
					return err
				}
				opts.Recorder.MaxRecord, opts.Recorder.Logger = recordMax, opts.Logger
				if _, ok := up["bedrock"]; ok && !opts.Recorder.AWS.Credentials.HasKeys() && opts.Logger != nil {
					opts.Logger.Warn("toolwire record: no AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY in the environment: SigV4-signed Bedrock requests will be refused; Bedrock API keys (Authorization: Bearer) are forwarded")
				}
			case replayDir != "":
				if opts.Replayer, err = record.LoadReplayer(replayDir); err != nil {
					return err
				}
			}
			// Checked before binding (nothing is exposed for a moment), and
			// again on the bound address (a name may resolve anywhere).
			notLoopback := fmt.Errorf("--addr %s is not loopback: the admin API needs --admin-token (or %s)", addr, AdminTokenEnv)
			if !mockprovider.IsLoopbackAddr(addr) && opts.AdminToken == "" {
				return notLoopback
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			loopback := listensOnLoopback(ln)
			if !loopback && opts.AdminToken == "" {
				ln.Close()
				return notLoopback
			}
			if opts.RAP.BaseURL == "" {
				opts.RAP.BaseURL = "http://" + ln.Addr().String()
			}
			srv := mockprovider.New(opts)
			defer srv.Close()
			printBanner(cmd.OutOrStdout(), ln.Addr().String(), len(set.Names()), opts.Rules.Lenient)
			if !loopback {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: listening on %s, beyond loopback: the model endpoints answer anyone who reaches it; the admin API (/_toolwire/) needs the %s header\n", ln.Addr(), mockprovider.AdminTokenHeader)
			}
			return serve(cmd.Context(), srv, ln, drain)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "listen address (loopback unless you name another)")
	f.StringArrayVar(&fixtures, "fixtures", nil, "directory of extra scenario YAML files (repeatable)")
	f.StringVar(&modelFile, "models", "", `YAML or JSON file of model catalog entries adding to or overriding the built-in catalog (an entry with id "*" accepts every id of its API)`)
	ruleFlags(cmd, &opts.Rules)
	f.IntVar(&limits.MaxSessions, "max-sessions", limits.MaxSessions, "sessions kept; the least recently used is evicted beyond this")
	f.DurationVar(&limits.IdleTTL, "idle-ttl", limits.IdleTTL, "drop sessions idle this long")
	f.IntVar(&limits.JournalEntries, "journal-entries", limits.JournalEntries, "journal entries kept per session")
	f.Int64Var(&limits.JournalBudget, "journal-budget", limits.JournalBudget, "bytes all journals and stored responses may hold together; the oldest go first")
	f.Int64Var(&bodyLimit, "body-limit", 32<<20, "largest request body accepted, in bytes (413 beyond)")
	f.DurationVar(&drain, "drain", 10*time.Second, "on SIGTERM, how long in-flight requests (WebSocket responses too) may finish")
	f.StringVar(&rapRev, "rap-revision", "2026-06", `RAP protocol revision tools are held to: "2026-06" (the June 2026 pages) or "head" (content results, image segments, user_choice, view_update)`)
	f.DurationVar(&opts.RAP.Deadline, "rap-deadline", 30*time.Second, "RAP: how long an invocation may go without a result before rap.no-silent-drop")
	f.StringVar(&recordDir, "record", "", "proxy to the real APIs (see --upstream) and record every exchange into this directory, secrets redacted")
	f.StringVar(&upstream, "upstream", "", "with --record: openai=URL,anthropic=URL,gemini=URL,bedrock=URL (SigV4-signed Bedrock requests are signed again with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN from this environment)")
	f.Int64Var(&recordMax, "record-limit", record.DefaultMaxRecord, "with --record: bytes of one answer a recording keeps (the client gets all of it; a recording cut there is marked incomplete)")
	f.StringVar(&replayDir, "replay", "", "answer from the recordings in this directory")
	f.StringVar(&opts.AdminToken, "admin-token", "", "token the admin API (/_toolwire/) requires in the "+mockprovider.AdminTokenHeader+" header; required when --addr is not loopback (default: $"+AdminTokenEnv+")")
	f.StringArrayVar(&rapAllow, "rap-allow", nil, "hosts /_toolwire/rap/invoke may reach besides loopback: a host name, an IP, a CIDR, or * (repeatable, or comma-separated)")
	f.DurationVar(&opts.RAP.DiscoveryTimeout, "rap-discovery-timeout", 10*time.Second, "RAP: how long fetching a tool's toolset may take")
	f.DurationVar(&opts.BodyReadTimeout, "body-timeout", mockprovider.DefaultBodyReadTimeout, "how long a request body may take to arrive")
	f.StringVar(&logFormat, "log-format", "text", `request log format: "text" or "json" (one line per request, on stderr)`)
	f.StringVar(&logLevel, "log-level", "info", `"debug", "info" (every request), "warn" (4xx/5xx answers only), "error" or "off"`)
	f.IntVar(&opts.MaxConcurrentDecodes, "max-concurrent-decodes", mockprovider.DefaultMaxConcurrentDecodes(), "requests decoded and checked at once (a decoded request holds many times its size); the others wait, within --work-timeout")
	f.DurationVar(&opts.WorkTimeout, "work-timeout", mockprovider.DefaultWorkTimeout, "how long a request may wait for a decode slot and be decoded, checked and answered by the model before it gets the provider's overloaded answer")
	f.DurationVar(&opts.StreamWriteTimeout, "write-timeout", mockprovider.DefaultStreamWriteTimeout, "how long each write of an answer (every stream event) may wait for a client that stopped reading")
	f.DurationVar(&opts.WebSocket.IdleTimeout, "ws-idle-timeout", mockprovider.DefaultSocketIdleTimeout, "WebSocket mode: close a socket no message has come on for this long")
	f.DurationVar(&opts.WebSocket.MaxLifetime, "ws-max-lifetime", mockprovider.DefaultSocketLifetime, "WebSocket mode: close a socket this long after it opened, with the API's websocket_connection_limit_reached error (the API's limit is 60 minutes)")
	f.IntVar(&opts.WebSocket.MaxSockets, "ws-max-sockets", mockprovider.DefaultMaxSockets, "WebSocket mode: sockets open at once; an upgrade beyond gets a 503")
	return cmd
}

// AdminTokenEnv is the environment variable --admin-token defaults to (a
// container passes secrets that way).
const AdminTokenEnv = "TOOLWIRE_ADMIN_TOKEN"

// listensOnLoopback reports whether a listener is bound to a loopback
// address only (not 0.0.0.0, ::, or an interface's address).
func listensOnLoopback(ln net.Listener) bool {
	a, ok := ln.Addr().(*net.TCPAddr)
	return ok && a.IP.IsLoopback()
}

// serve runs until SIGINT/SIGTERM, then drains in-flight requests.
func serve(ctx context.Context, h *mockprovider.Server, ln net.Listener, drain time.Duration) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.Sessions().Expire()
			}
		}
	}()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	// WebSocket-mode sockets are hijacked connections, which hs.Shutdown
	// neither waits for nor closes: they drain (and are closed with 1001)
	// in h.Shutdown, in the same grace period.
	sockets := make(chan struct{})
	go func() { _ = h.Shutdown(sctx); close(sockets) }()
	err := hs.Shutdown(sctx)
	<-sockets
	if errors.Is(err, context.DeadlineExceeded) {
		// Drain time is up: cut what is left. A recorded exchange still in
		// flight is then written, marked incomplete, before we exit.
		_ = hs.Close()
		if rec := h.Recorder(); rec != nil {
			rec.Wait(5 * time.Second)
		}
		return nil
	}
	return err
}

func printBanner(w io.Writer, addr string, scenarios int, lenient bool) {
	base := "http://" + addr
	mode := "strict"
	if lenient {
		mode = "lenient"
	}
	fmt.Fprintf(w, `toolwire %s mock provider on %s (%s rules, %d scenarios)
  OpenAI (Chat + Responses)  OPENAI_BASE_URL=%s/v1        OPENAI_API_KEY=<session name>
  Anthropic Messages         ANTHROPIC_BASE_URL=%s           ANTHROPIC_API_KEY=<session name>
  Gemini                     GOOGLE_GEMINI_BASE_URL=%s       GEMINI_API_KEY=<session name>
  Admin and journals         %s/_toolwire/sessions
`, mockprovider.Version, addr, mode, scenarios, base, base, base, base)
}

// newLogger builds the request logger of --log-format and --log-level
// (nil for "off").
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	switch level {
	case "off":
		return nil, nil
	case "debug", "info", "warn", "error":
		if err := lv.UnmarshalText([]byte(level)); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn, error or off", level)
	}
	o := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}
