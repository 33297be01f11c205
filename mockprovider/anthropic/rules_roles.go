package anthropic

import (
	"fmt"
	"slices"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Roles: the conversation opens with the user and alternates. The API now
// merges what breaks either, so both are journaled; --strict-roles answers
// them with the historic 400 instead (each breach reported once either way).

const (
	RuleFirstMessageUser      = "anthropic.first-message-user"
	RuleStrictFirstUser       = "anthropic.strict-first-message-user"
	RuleRoleAlternation       = "anthropic.role-alternation"
	RuleStrictRoleAlternation = "anthropic.strict-role-alternation"
)

func roleRules(s *rules.Set[Request]) {
	const (
		hello   = `{"role":"assistant","content":"Hello, how can I help?"}`
		andRome = `{"role":"user","content":"And in Rome?"}`
		merged  = `{"role":"user","content":[{"type":"text","text":"What's the weather in Paris?"},{"type":"text","text":"And in Rome?"}]}`
	)
	s.Add(rules.Rule{ID: RuleFirstMessageUser, Level: rules.SHOULD, Family: "ordering",
		Summary: "The first message should use the user role (the API now accepts an assistant first; journaled only).",
		Refs: []rules.Ref{{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v1.84.0/message.go",
			Quote: "MessageParam: consecutive same-role turns are combined, so the old first-message text is no longer enforced"}},
		Cases: []rules.Case{{
			Name: "conversation opens with the assistant (accepted, journaled)",
			Bad:  body(msgs(hello, askWeather)),
			Good: body(msgs(askWeather)),
		}},
	}, checkFirstUser(false))

	s.Add(rules.Rule{ID: RuleStrictFirstUser, Level: rules.MUST, Family: "ordering", Option: "--strict-roles",
		Summary: "With --strict-roles, a first message not from the user gets the historic 400.",
		Refs:    []rules.Ref{{URL: "https://github.com/lobehub/lobe-chat/issues/1496"}, {URL: "https://github.com/microsoft/autogen/issues/2884"}},
		Cases: []rules.Case{{
			Name:        "conversation opens with the assistant under --strict-roles",
			Bad:         body(msgs(hello, askWeather)),
			Good:        body(msgs(askWeather)),
			WantStatus:  400,
			WantMessage: `messages: first message must use the "user" role`,
		}},
	}, checkFirstUser(true))

	s.Add(rules.Rule{ID: RuleRoleAlternation, Level: rules.SHOULD, Family: "ordering",
		Summary: "Roles should alternate; the API merges consecutive same-role messages (journaled only).",
		Refs:    []rules.Ref{{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v1.84.0/message.go", Quote: "MessageParam doc comment"}},
		Cases: []rules.Case{{
			Name: "two user messages in a row (merged, journaled)",
			Bad:  body(msgs(askWeather, andRome)),
			Good: body(msgs(merged)),
		}},
	}, checkAlternation(false))

	s.Add(rules.Rule{ID: RuleStrictRoleAlternation, Level: rules.MUST, Family: "ordering", Option: "--strict-roles",
		Summary: "With --strict-roles, consecutive same-role messages get the historic 400.",
		Refs:    []rules.Ref{{URL: "https://github.com/etkecc/baibot/issues/13"}, {URL: "https://github.com/lobehub/lobe-chat/issues/1496"}},
		Cases: []rules.Case{{
			Name:        "two user messages in a row under --strict-roles",
			Bad:         body(msgs(askWeather, andRome)),
			Good:        body(msgs(merged)),
			WantStatus:  400,
			WantMessage: `messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row`,
		}},
	}, checkAlternation(true))
}

// checkFirstUser: strict reports only under --strict-roles, the SHOULD
// form only without it, so a breach is journaled once either way.
func checkFirstUser(strict bool) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, env *rules.Env) []rules.Violation {
		if strictRoles(env) != strict {
			return nil
		}
		// System messages are instructions, not turns.
		first := slices.IndexFunc(r.Messages, func(m *Message) bool { return m.Role != "system" })
		if first < 0 || r.Messages[first].Role == "user" {
			return nil
		}
		p := fmt.Sprintf("messages.%d.role", first)
		return []rules.Violation{messageBreach(first, p, `messages: first message must use the "user" role`)}
	}
}

func checkAlternation(strict bool) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, env *rules.Env) []rules.Violation {
		if strictRoles(env) != strict {
			return nil
		}
		var out []rules.Violation
		previous := ""
		for i, m := range r.Messages {
			if m.Role == "system" {
				continue // instructions between turns
			}
			if m.Role == previous {
				out = append(out, messageBreach(i, fmt.Sprintf("messages.%d.role", i),
					fmt.Sprintf(`messages: roles must alternate between "user" and "assistant", but found multiple %q roles in a row`, m.Role)))
			}
			previous = m.Role
		}
		return out
	}
}

func strictRoles(env *rules.Env) bool { return env != nil && env.Options.StrictRoles }
