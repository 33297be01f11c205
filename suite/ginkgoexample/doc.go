// Package ginkgoexample shows a Go adapter's own Ginkgo suite including
// the conformance specs in one line (see adapter_suite_test.go). The
// "adapter" here is the reference driver standing in for a library's own
// tool loop.
package ginkgoexample

import (
	"context"

	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/refdriver/dialects"
)

// Drive is the adapter's entry point as the suite calls it: run the task
// against the base URLs and key of inv.Env, return the final text.
func Drive(ctx context.Context, inv suite.Invocation) (string, error) {
	env := refdriver.EnvFromMap(func(k string) string { return inv.Env[k] })
	return dialects.Driver(refdriver.None).Run(ctx, env, inv.Task)
}
