package anthropic_test

import (
	"testing"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/ruletest"
)

// newServer serves only this dialect, so the tests do not depend on the
// state of the others.
func newServer(t testing.TB, opts mockprovider.Options) *mockprovider.TestServer {
	t.Helper()
	opts.Dialects = []dialect.Dialect{anthropic.New()}
	return mockprovider.NewTestServer(t, opts)
}

func strictOptions() mockprovider.Options {
	o := rules.DefaultOptions()
	o.StrictRoles = true
	return mockprovider.Options{Rules: o}
}

// TestRuleCases posts every case's Bad and Good request. Rules bound to a
// serve option run against a server with that option set.
func TestRuleCases(t *testing.T) {
	plain := newServer(t, mockprovider.Options{})
	strict := newServer(t, strictOptions())
	var byDefault, byOption []dialect.RuleCase
	for _, c := range anthropic.RuleCases() {
		r, ok := plain.Mock.Catalog().Get(c.Rule)
		if !ok {
			t.Fatalf("case for unknown rule %s", c.Rule)
		}
		switch r.Option {
		case "":
			byDefault = append(byDefault, c)
		case "--strict-roles":
			byOption = append(byOption, c)
		default:
			t.Fatalf("rule %s has option %s the test does not know", r.ID, r.Option)
		}
	}
	ruletest.Covers(t, plain, conv.Anthropic, anthropic.RuleCases())
	ruletest.Run(t, plain, conv.Anthropic, byDefault)
	ruletest.Run(t, strict, conv.Anthropic, byOption)
}

// TestStrictRulesQuietByDefault: without --strict-roles the historic role
// errors never answer, and with it the SHOULD forms are not journaled
// twice.
func TestStrictRulesQuietByDefault(t *testing.T) {
	d := anthropic.New()
	for _, c := range anthropic.RuleCases() {
		if c.Rule != anthropic.RuleStrictFirstUser && c.Rule != anthropic.RuleStrictRoleAlternation {
			continue
		}
		req, _, aerr := d.Decode(nil, c.Bad)
		if aerr != nil {
			t.Fatalf("%s: decode: %v", c.Rule, aerr)
		}
		env := &rules.Env{Options: rules.DefaultOptions()}
		if v := rules.FirstMust(rules.Run(d.Rules(), req, env)); v != nil {
			t.Errorf("%s: default options answer %s", c.Rule, v)
		}
		env.Options.StrictRoles = true
		vs := rules.Run(d.Rules(), req, env)
		for _, v := range vs {
			if v.Level == rules.SHOULD {
				t.Errorf("%s: strict options still journal SHOULD %s", c.Rule, v.Rule)
			}
		}
	}
}
