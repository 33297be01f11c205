package mockprovider

import (
	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/bedrock"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/gemini"
	"github.com/toolwire/toolwire/mockprovider/openaichat"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

func builtinDialects() []dialect.Dialect {
	return []dialect.Dialect{openaichat.New(), openairesp.New(), anthropic.New(), gemini.New(), bedrock.New()}
}

// BuiltinDialect returns a new instance of the built-in dialect named d,
// for what it answers outside a server (dialect.Client: its endpoint, auth
// headers and error envelope).
func BuiltinDialect(d conv.Dialect) (dialect.Dialect, bool) {
	for _, dl := range builtinDialects() {
		if dl.Name() == d {
			return dl, true
		}
	}
	return nil, false
}

// BuiltinScenarios loads the scenarios shipped in fixtures/scenarios.
func BuiltinScenarios() (*scenario.Set, error) {
	list, err := scenario.LoadFS(fixtures.Scenarios, "scenarios")
	if err != nil {
		return nil, err
	}
	return scenario.NewSet(list...)
}

// LoadScenarios returns the built-in scenarios plus those in dirs.
func LoadScenarios(dirs ...string) (*scenario.Set, error) {
	set, err := BuiltinScenarios()
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		list, err := scenario.LoadDir(d)
		if err != nil {
			return nil, err
		}
		for _, sc := range list {
			if err := set.Add(sc); err != nil {
				return nil, err
			}
		}
	}
	return set, nil
}
