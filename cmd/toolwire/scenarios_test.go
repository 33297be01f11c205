package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScenariosValidateReportsEveryProblem(t *testing.T) {
	dir := t.TempDir()
	good := "name: ok\ntools:\n  - name: get_weather\nturns:\n  - text: hi\n"
	bad1 := "name: bad-one\nturnz: []\ntools:\n  - name: a\n    colour: red\n"
	bad2 := "name: bad-two\ntools:\n  - name: get_weather\nturns:\n  - calls:\n      - name: nope\n  - calls:\n      - name: also_nope\n"
	for name, body := range map[string]string{"good.yaml": good, "bad1.yaml": bad1, "bad2.yml": bad2} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := newScenariosCommand()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"validate", dir})
	err := cmd.Execute()
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 1 {
		t.Fatalf("err = %v; want exit 1\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		filepath.Join(dir, "bad1.yaml") + ":2: turnz: unknown field",
		filepath.Join(dir, "bad1.yaml") + ":5: tools[0].colour: unknown field",
		filepath.Join(dir, "bad2.yml") + ":6: turns[0].calls[0].name: unknown tool \"nope\"",
		filepath.Join(dir, "bad2.yml") + ":8: turns[1].calls[0].name: unknown tool \"also_nope\"",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "good.yaml") || !strings.Contains(errOut.String(), "2 of 3 files") {
		t.Errorf("output:\n%s\nstderr: %s", got, errOut.String())
	}
}
