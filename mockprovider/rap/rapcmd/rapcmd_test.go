package rapcmd_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/rap"
	"github.com/toolwire/toolwire/mockprovider/rap/rapcmd"
	"github.com/toolwire/toolwire/mockprovider/rap/reftool"
)

func run(t *testing.T, brk string, args ...string) (*rap.Outcome, error) {
	t.Helper()
	tool, err := reftool.New(reftool.Options{Break: brk})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tool)
	defer func() {
		tool.Close()
		srv.Close()
	}()
	cmd := rapcmd.Command()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetArgs(append([]string{"invoke", srv.URL}, args...))
	err = cmd.Execute()
	var o rap.Outcome
	if out.Len() > 0 {
		if jerr := json.Unmarshal(out.Bytes(), &o); jerr != nil {
			t.Fatalf("output is not an outcome: %v\n%s", jerr, out.String())
		}
	}
	return &o, err
}

func TestInvokeHonestTool(t *testing.T) {
	o, err := run(t, "", "edit", `{"path":"main.go"}`, "--call-id", "c1")
	if err != nil || o.Status != rap.StatusCompleted || len(o.Violations) != 0 || *o.CallID != "c1" || len(o.Result.DisplayAs) != 2 {
		t.Fatalf("%v %+v", err, o)
	}
}

func TestInvokeMustViolationFails(t *testing.T) {
	o, err := run(t, reftool.BreakNoCallIDEcho, "echo", `{"text":"x"}`, "--call-id", "c1")
	if !errors.Is(err, rapcmd.ErrMustViolation) || len(o.Violations) != 1 || o.Violations[0].Rule != rap.RuleCallIDEcho {
		t.Fatalf("%v %+v", err, o)
	}
	// A SHOULD alone does not fail the command; the duplicate arrives
	// during --linger.
	o, err = run(t, reftool.BreakDuplicate, "echo", `{"text":"x"}`)
	if err != nil || o.Duplicates != 1 || o.Violations[0].Rule != rap.RuleDuplicateResult {
		t.Fatalf("%v %+v", err, o)
	}
}

func TestInvokeBadInput(t *testing.T) {
	if _, err := run(t, "", "echo", `{not json`); err == nil {
		t.Error("want an error for bad ARGS_JSON")
	}
	if _, err := run(t, "", "echo", `{}`, "--rap-revision", "1999"); err == nil {
		t.Error("want an error for an unknown revision")
	}
}
