// Package reference runs the reference driver (suite/refdriver and the
// dialects' loops it lists in suite/refdriver/dialects, built on the
// official SDKs) in process as a suite.Driver. It is a package of its
// own so that the suite, and the toolwire binary that serves the mock,
// do not link the SDKs: importing it also lets `conform --reference` run
// the driver in process instead of as a toolwire-refdriver process.
package reference

import (
	"context"
	"fmt"

	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/refdriver/dialects"
)

func init() {
	suite.RegisterReference(func(brk string) (suite.Driver, error) {
		if _, ok := dialects.LookupBreak(brk); !ok {
			return nil, fmt.Errorf("unknown reference break %q", brk)
		}
		return Driver(refdriver.Break(brk)), nil
	})
}

// Driver is the reference driver in process, optionally with a break.
func Driver(b refdriver.Break) suite.Driver {
	d := dialects.Driver(b)
	return suite.Func(func(ctx context.Context, inv suite.Invocation) (string, error) {
		env := refdriver.EnvFromMap(func(k string) string { return inv.Env[k] })
		return d.Run(ctx, env, inv.Task)
	})
}
