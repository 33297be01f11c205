package anthropic

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestKnownModelsCoverSDK: every Model constant the Go SDK declares
// (message.go of the module in go.mod) names a model GET /v1/models/{id}
// describes, so a client that picks one of the SDK's constants is never
// told the model does not exist. A new SDK constant fails here.
func TestKnownModelsCoverSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/anthropics/anthropic-sdk-go/v2").Output()
	if err != nil {
		t.Skipf("cannot locate the SDK source: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "message.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Model" || len(v.Values) != 1 {
				continue
			}
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				continue
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, s)
		}
	}
	if len(ids) < 10 {
		t.Fatalf("found %d Model constants in %s: the parse is not reaching them", len(ids), file)
	}
	for _, id := range ids {
		if _, ok := lookupModel(id); !ok {
			t.Errorf("SDK model %q is unknown to GET /v1/models/{id}", id)
		}
	}
	// An exact id wins over a snapshot reading of a shorter one.
	if i, _ := lookupModel("claude-sonnet-5-5"); knownModels[i].id != "claude-sonnet-5-5" {
		t.Errorf("claude-sonnet-5-5 read as %s", knownModels[i].id)
	}
	if _, ok := lookupModel("claude-sonnet-5-nope"); ok {
		t.Error("a made-up suffix names a model")
	}
}
