package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuleSourcesArePublicURLsOrRepoFiles: every reference in every rule's
// source is a public URL or a file of this repository, so a reader can
// open it (docs/rules.md links them). A source citing a document that is
// not in the repository, or a thread by its name instead of its URL,
// fails here, one error per rule.
func TestRuleSourcesArePublicURLsOrRepoFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, r := range catalog() {
		var bad []string
		refs := sourceRefs(r.Source)
		if len(refs) == 0 {
			bad = append(bad, "(no source)")
		}
		for _, ref := range refs {
			switch {
			case ref.URL != "":
			case ref.Path != "":
				if _, err := os.Stat(filepath.Join(root, ref.Path)); err != nil {
					bad = append(bad, ref.Text+" (no such file in the repository)")
				}
			case inferenceNote(ref.Text):
			default:
				bad = append(bad, ref.Text)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s: source is neither a public URL nor a repository file: %s", r.ID, strings.Join(bad, " | "))
		}
	}
}

// inferenceNote reports whether a source part only says that a message
// text is inferred ("message [I]", "texts [I]: pydantic wording"), the
// catalog's marker, rather than citing a document.
func inferenceNote(part string) bool {
	if !strings.Contains(part, "[I]") {
		return false
	}
	for _, cite := range []string{"seed ", ".md", " #"} {
		if strings.Contains(part, cite) {
			return false
		}
	}
	return true
}

func TestSourceRefs(t *testing.T) {
	refs := sourceRefs("https://example.com/a#b (note); mockprovider/rap/README.md §Flow; an offline note §X")
	if len(refs) != 3 || refs[0].URL != "https://example.com/a#b" || refs[0].Note != "(note)" ||
		refs[1].Path != "mockprovider/rap/README.md" || refs[1].Note != "§Flow" || refs[2].URL != "" || refs[2].Path != "" {
		t.Fatalf("%+v", refs)
	}
	md := markdownSource("https://example.com/a (x); fixtures/README.md")
	if md != "[example.com/a](https://example.com/a) (x); [fixtures/README.md](../fixtures/README.md)" {
		t.Fatal(md)
	}
}
