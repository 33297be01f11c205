package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	l, err := newLogger(&buf, "json", "warn")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("request", "status", 200)
	l.Warn("request", "status", 400)
	if out := buf.String(); strings.Count(out, "\n") != 1 || !strings.Contains(out, `"status":400`) {
		t.Fatalf("--log-level warn should keep only the failure:\n%s", out)
	}
	if l, err := newLogger(&buf, "text", "off"); err != nil || l != nil {
		t.Fatalf("off: %v %v", l, err)
	}
	for _, bad := range [][2]string{{"yaml", "info"}, {"text", "loud"}} {
		if _, err := newLogger(&buf, bad[0], bad[1]); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
