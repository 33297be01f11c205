// Command toolwire-reftool serves the RAP conformance toolset (echo, fail,
// edit, subscribe, slow) honestly, or with --break NAME one of its broken
// variants, and prints its base URL.
package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
)

func main() {
	var addr, brk string
	cmd := &cobra.Command{
		Use:          "toolwire-reftool",
		Short:        "The reference RAP tool: the conformance toolset, honest or broken on purpose",
		Args:         cobra.NoArgs,
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tool, err := reftool.New(reftool.Options{Break: brk})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "http://%s\n", ln.Addr())
			srv := &http.Server{Handler: tool, ReadHeaderTimeout: 10 * time.Second}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(shut)
				tool.Close()
			}()
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "listen address")
	cmd.Flags().StringVar(&brk, "break", "", "broken variant: "+strings.Join(reftool.Breaks, ", "))
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
