// Package rapcmd is the `toolwire rap` command: it runs a RAP runtime on a
// loopback port to receive callbacks, invokes one operation of a tool and
// prints the delivered result and every violation as JSON.
package rapcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// ErrMustViolation is returned after the outcome is printed when the tool
// broke a MUST rule; the caller exits 1.
var ErrMustViolation = errors.New("the tool broke a RAP MUST rule")

// Command returns `rap` with its `invoke` subcommand.
func Command() *cobra.Command {
	cmd := &cobra.Command{
		Use:           "rap",
		Short:         "Drive a Reactive Agent Protocol tool through the mock RAP runtime",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	cmd.AddCommand(invokeCommand())
	return cmd
}

func invokeCommand() *cobra.Command {
	var (
		callID, addr, callbackBase, revision, groupID, userID, sessionKey string
		deadline, linger                                                  time.Duration
		expectError                                                       bool
	)
	cmd := &cobra.Command{
		Use:   "invoke TOOL_URL OPERATION ARGS_JSON",
		Short: "Invoke one operation, wait for its callbacks, print the outcome and violations as JSON (exit 1 on a MUST violation)",
		Example: `  toolwire rap invoke http://127.0.0.1:9300 echo '{"text":"hi"}' --call-id c1
  toolwire rap invoke http://127.0.0.1:9300 subscribe '{"count":3}'`,
		Args:          cobra.ExactArgs(3),
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !json.Valid([]byte(args[2])) {
				return fmt.Errorf("ARGS_JSON is not valid JSON: %s", args[2])
			}
			rev, err := rap.ParseRevision(revision)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen for callbacks on %s: %w", addr, err)
			}
			base := callbackBase
			if base == "" {
				base = "http://" + ln.Addr().String()
			}
			rt := rap.New(session.NewStore(session.DefaultLimits()), rap.Options{BaseURL: strings.TrimRight(base, "/"), Revision: rev, Deadline: deadline})
			mux := http.NewServeMux()
			rt.Register(mux)
			srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
			go func() { _ = srv.Serve(ln) }()
			defer func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				_ = srv.Shutdown(ctx)
				rt.Close()
			}()

			req := rap.InvokeRequest{ToolURL: args[0], Operation: args[1], Arguments: json.RawMessage(args[2]),
				GroupID: groupID, UserID: userID, ExpectError: expectError, Session: sessionKey}
			if cmd.Flags().Changed("call-id") {
				req.CallID = &callID
			}
			out, err := rt.Invoke(cmd.Context(), req)
			var te *rap.ToolsetError
			if err != nil && !errors.As(err, &te) {
				return err
			}
			if err == nil && linger > 0 {
				// Late messages (duplicates, results after the deadline)
				// still count against the tool.
				select {
				case <-time.After(linger):
				case <-cmd.Context().Done():
				}
				if snap, ok := rt.Snapshot(out.GroupID, out.ID); ok {
					out = snap
				}
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				return err
			}
			if len(out.MustViolations()) > 0 {
				return ErrMustViolation
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&callID, "call-id", "", "send this call_id (the tool must echo it); without the flag call_id is null")
	f.StringVar(&addr, "addr", "127.0.0.1:0", "address the in-process runtime listens on for callbacks")
	f.StringVar(&callbackBase, "callback-base", "", "callback base URL the tool should use (default: http://ADDR)")
	f.StringVar(&revision, "rap-revision", string(rap.RevisionJune2026), "RAP revision the tool is held to: 2026-06 (June 2026, https://infinity.hydro.run/docs/rap/spec/basic/tool-result) or head (content results, image segments, user_choice, view_update)")
	f.StringVar(&groupID, "group-id", "", "thread id to send (default: minted)")
	f.StringVar(&userID, "user-id", "", "user_id to send")
	f.StringVar(&sessionKey, "session", rap.DefaultSession, "journal session key")
	f.DurationVar(&deadline, "deadline", 30*time.Second, "how long the tool has to send its result before rap.no-silent-drop")
	f.DurationVar(&linger, "linger", 200*time.Millisecond, "keep receiving this long after the outcome, to catch duplicates and late messages")
	f.BoolVar(&expectError, "expect-error", false, "the result should be an error (judge rap.error-prefix)")
	return cmd
}
