package suite

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/suite/task"
)

// Every dialect gives the driver contract a default model and the
// variables its SDKs read, and the harness hands a driver all of them.
func TestDriverContractComesFromTheDialects(t *testing.T) {
	for _, d := range conv.Dialects {
		j := judgeOf(d)
		if j.DefaultModel == "" || j.DriverEnv == nil {
			t.Fatalf("%s: no default model or driver environment", d)
		}
		if len(j.DriverEnv("http://127.0.0.1:1", "k")) == 0 {
			t.Errorf("%s: an empty driver environment", d)
		}
	}
	env := driverEnv("http://127.0.0.1:1", Combo{Dialect: conv.Gemini, Scenario: &scenario.Scenario{Name: "s"}}, "tw-key", "/tmp/task.json")
	for k, want := range map[string]string{
		"OPENAI_BASE_URL": "http://127.0.0.1:1/v1", "OPENAI_API_KEY": "tw-key", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
		"GEMINI_API_KEY": "tw-key", "AWS_ACCESS_KEY_ID": "tw-key", task.EnvTask: "/tmp/task.json", task.EnvDialect: "gemini",
	} {
		if env[k] != want {
			t.Errorf("%s = %q, want %q", k, env[k], want)
		}
	}
}
