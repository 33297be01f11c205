package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/fixtures"
	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
	"github.com/toolwire/toolwire/mockprovider/scenario"
	"github.com/toolwire/toolwire/suite"
)

// TestCatalog holds every rule toolwire knows to its declaration: a family
// its specs are grouped under, references a reader can open (public URLs,
// files of this repository, or notes marking what is inferred), and, for
// each rule the mock checks on requests, break/fix cases that the mock
// answers as declared (the bad request breaks the rule, the good one
// keeps it).
func TestCatalog(t *testing.T) {
	all := catalog()
	families := suite.FamilyNames()
	root := filepath.Join("..", "..")
	// A rule tagged with a feature counts as exercised only on scenarios
	// of that feature, and a driver that does not declare it is not
	// judged on it: a tag no built-in scenario carries makes a rule that
	// never passes anywhere.
	scenarios, err := scenario.LoadFS(fixtures.Scenarios, "scenarios")
	if err != nil {
		t.Fatal(err)
	}
	features := map[string]bool{"": true, "core": true, "streaming": true}
	for _, sc := range scenarios {
		for _, f := range sc.Features {
			features[f] = true
		}
	}
	for _, r := range all {
		// RAP rules are judged in tool mode, whose features are its own.
		if r.Dialect != conv.RAP && !features[r.Feature] {
			t.Errorf("%s is tagged with feature %q, which no built-in scenario has", r.ID, r.Feature)
		}
		if r.Dialect != conv.RAP {
			// RAP rules are judged in tool mode, outside the families.
			if f := suite.FamilyOf(r); f == "other" || !slices.Contains(families, f) {
				t.Errorf("%s belongs to no rule family (declare its Family)", r.ID)
			}
		}
		if bad := badRefs(root, r.Refs); len(bad) > 0 {
			t.Errorf("%s: references neither a public URL, a repository file nor an inference note: %s", r.ID, strings.Join(bad, " | "))
		}
	}

	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	for _, d := range append(slices.Clone(conv.Dialects), conv.RAP) {
		if len(ts.Mock.Catalog().ForDialect(d)) == 0 {
			t.Errorf("no rules for %s", d)
		}
	}
	// A rule the default server leaves quiet breaks on a server with its
	// option set.
	strictRoles := rules.DefaultOptions()
	strictRoles.StrictRoles = true
	optionServers := map[string]*mockprovider.TestServer{
		"--strict-roles": mockprovider.NewTestServer(t, mockprovider.Options{Rules: strictRoles}),
	}
	for _, d := range conv.Dialects {
		var cases []dialect.RuleCase
		for _, r := range ts.Mock.Catalog().ForDialect(d) {
			cases = append(cases, r.Cases...)
		}
		proven := map[string]bool{}
		for _, c := range cases {
			if r, ok := ts.Mock.Catalog().Get(c.Rule); !ok || r.Dialect != d {
				t.Errorf("%s case %q names %q, not a %s rule in the catalog", d, c.Name, c.Rule, d)
			}
			proven[c.Rule] = proven[c.Rule] || len(c.Bad) > 0 && len(c.Good) > 0
		}
		// A rule without a check is enforced while decoding (valid JSON,
		// member types) or by the server (the model exists): its case
		// proves it all the same.
		for _, r := range ts.Mock.Catalog().ForDialect(d) {
			if !proven[r.ID] {
				t.Errorf("%s has no case with a bad and a good request", r.ID)
			}
		}
		byServer := map[*mockprovider.TestServer][]dialect.RuleCase{}
		for _, c := range cases {
			r, _ := ts.Mock.Catalog().Get(c.Rule)
			server := ts
			if s, ok := optionServers[r.Option]; ok {
				server = s
			}
			byServer[server] = append(byServer[server], c)
		}
		t.Run(string(d), func(t *testing.T) {
			for server, cases := range byServer {
				ruletest.Run(t, server, d, cases)
			}
		})
	}
}

// badRefs are the references a reader could not open: a URL that is
// neither public nor a file of the repository, or a note that neither
// cites a place nor says it is inferred (a document named in a note
// instead of linked counts as neither).
func badRefs(root string, refs []rules.Ref) []string {
	var bad []string
	if len(refs) == 0 {
		bad = append(bad, "(no references)")
	}
	for _, ref := range refs {
		switch {
		case strings.HasPrefix(ref.URL, "https://"), strings.HasPrefix(ref.URL, "http://"):
		case ref.URL != "":
			if _, err := os.Stat(filepath.Join(root, ref.URL)); err != nil {
				bad = append(bad, ref.URL+" (no such file in the repository)")
			}
		case !ref.Inferred:
			bad = append(bad, ref.Quote)
		case strings.Contains(ref.Quote, "seed "), strings.Contains(ref.Quote, ".md"), strings.Contains(ref.Quote, " #"):
			bad = append(bad, ref.Quote+" (names a document instead of linking it)")
		}
	}
	return bad
}

func TestMarkdownRefs(t *testing.T) {
	md := markdownRefs([]rules.Ref{
		{URL: "https://example.com/a", Quote: "x"},
		{URL: "fixtures/README.md"},
		{Quote: "the text", Inferred: true},
	})
	if md != "[example.com/a](https://example.com/a) (x); [fixtures/README.md](../fixtures/README.md); the text [I]" {
		t.Fatal(md)
	}
}
