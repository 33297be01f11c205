package refdriver

import (
	"testing"

	core "github.com/toolwire/toolwire/suite/refdriver"
)

// TestEveryRowMakesItsMistake: a row with no hook would run the honest
// loop under a mistake's name.
func TestEveryRowMakesItsMistake(t *testing.T) { core.CheckHooks(t, mistakes) }
