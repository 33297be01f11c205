package rap

import (
	"sync"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The rules the runtime judges. The runtime, not rules.Run, decides them:
// they concern callbacks and timing, not one decoded request, so every
// rule is declared without a check.
var set = rules.NewSet[struct{}](conv.RAP)

const revOption = "rap-revision"

var RuleToolsetManifest = set.Add(rules.Rule{
	ID: "rap.toolset-manifest", Level: rules.MUST,
	Summary: "GET {tool}/.well-known/rap-toolset answers a valid manifest (name 1-128 chars, endpoint, at least one tool, each with name, description and a compilable inputSchema object; annotations typed); an invalid toolset is rejected whole",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/toolsets"},
	},
}, nil)

var RuleToolsetUnique = set.Add(rules.Rule{
	ID: "rap.toolset-unique-names", Level: rules.MUST,
	Summary: "tool names are unique within a toolset; a duplicate rejects the toolset whole",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/toolsets"},
	},
}, nil)

var RuleInvocationAck = set.Add(rules.Rule{
	ID: "rap.invocation-ack", Level: rules.MUST,
	Summary: "the tool answers an invocation with HTTP 200 at once; anything else is recorded as an error result (5xx and unreachable retried with backoff, 4xx never)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/transport"},
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-invocation"},
	},
}, nil)

var RuleCallbackJSON = set.Add(rules.Rule{
	ID: "rap.callback-json", Level: rules.MUST,
	Summary: "a callback is an HTTP POST with Content-Type: application/json and a JSON object body",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Request"},
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/transport"},
	},
}, nil)

var RuleCallbackType = set.Add(rules.Rule{
	ID: "rap.callback-type", Level: rules.MUST, Option: revOption,
	Summary: "a callback's type is one the protocol revision defines (tool_result, subscription_event, oauth; user_choice and view_update from the newer revision)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/overview", Quote: "message types"},
	},
}, nil)

var RuleCallbackFields = set.Add(rules.Rule{
	ID: "rap.callback-fields", Level: rules.MUST, Option: revOption,
	Summary: "a callback carries its type's required fields with the right JSON types (text, or content items in the newer revision)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Fields"},
		{URL: "https://infinity.hydro.run/docs/rap/spec/overview"},
	},
}, nil)

var RuleGroupIDMatch = set.Add(rules.Rule{
	ID: "rap.group-id-match", Level: rules.MUST,
	Summary: "group_id matches the invocation's group_id; an unmatched message is logged and discarded, never injected into a conversation",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Fields, Routing, Security Considerations"},
	},
}, nil)

var RuleIDMatch = set.Add(rules.Rule{
	ID: "rap.id-match", Level: rules.MUST,
	Summary: "id (tool_call_id for subscription events) matches a pending tool call; an unmatched message is logged and discarded",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Fields, Routing, Security Considerations"},
	},
}, nil)

var RuleCallIDEcho = set.Add(rules.Rule{
	ID: "rap.call-id-echo", Level: rules.MUST,
	Summary: "when the invocation carried a call_id, the callback echoes it exactly",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Fields"},
	},
}, nil)

var RuleDisplaySegment = set.Add(rules.Rule{
	ID: "rap.display-segment", Level: rules.MUST, Option: revOption,
	Summary: "each display_as segment is an object with a string type and content: a string for text, {path, patch} strings for diff ({data, mediaType} for image in the newer revision)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Display Segments"},
	},
}, nil)

var RuleDiffPatch = set.Add(rules.Rule{
	ID: "rap.diff-patch", Level: rules.MUST,
	Summary: "a diff segment's patch parses as a unified diff (---/+++ headers and at least one @@ hunk)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Segment Type: diff"},
	},
}, nil)

var RuleDisplayTextLast = set.Add(rules.Rule{
	ID: "rap.display-text-last", Level: rules.SHOULD,
	Summary: "display_as ends with a text segment as the universal fallback",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Rendering Behavior"},
	},
}, nil)

var RuleDisplayTextShort = set.Add(rules.Rule{
	ID: "rap.display-text-short", Level: rules.SHOULD,
	Summary: "text segments are short: one line of at most 120 characters",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Rendering Behavior"},
	},
}, nil)

var RuleErrorPrefix = set.Add(rules.Rule{
	ID: "rap.error-prefix", Level: rules.SHOULD,
	Summary: "an error is an ordinary tool_result whose text starts with \"Error: \" (judged when the caller expects an error or the text reads like one, e.g. \"error: …\", \"failed: …\")",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Error Handling, Error Conventions"},
	},
}, nil)

var RuleNoStackTrace = set.Add(rules.Rule{
	ID: "rap.no-stack-trace", Level: rules.SHOULD,
	Summary: "results carry no stack traces (Go, Java, Python, JavaScript trace patterns)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Error Conventions"},
	},
}, nil)

var RuleNoSecrets = set.Add(rules.Rule{
	ID: "rap.no-secrets", Level: rules.SHOULD,
	Summary: "results carry no credentials: neither the invocation's own callback secret nor key-like strings (the seed says MUST NOT; detection is heuristic, so it is reported as SHOULD)",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Security Considerations"},
	},
}, nil)

var RuleNoSilentDrop = set.Add(rules.Rule{
	ID: "rap.no-silent-drop", Level: rules.MUST, Option: "rap-deadline",
	Summary: "every invocation produces a tool_result (or first an oauth, or in the newer revision a user_choice) before the runtime's deadline",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Error Handling"},
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/lifecycle"},
	},
}, nil)

var RuleDuplicateResult = set.Add(rules.Rule{
	ID: "rap.duplicate-result", Level: rules.SHOULD,
	Summary: "a result is delivered once; an identical duplicate is acknowledged, counted and not delivered again",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result", Quote: "Security Considerations"},
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/lifecycle"},
	},
}, nil)

var RuleSingleResult = set.Add(rules.Rule{
	ID: "rap.single-result", Level: rules.MUST,
	Summary: "exactly one terminal tool_result per invocation; a second, different one is discarded",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/basic/lifecycle"},
	},
}, nil)

var RuleSubscriptionEvent = set.Add(rules.Rule{
	ID: "rap.subscription-active", Level: rules.MUST,
	Summary: "subscription_events follow a tool_result with subscription: true and stop after the event marked final",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/server/subscription-events"},
	},
}, nil)

var RuleOAuthHTTPS = set.Add(rules.Rule{
	ID: "rap.oauth-https", Level: rules.MUST,
	Summary: "an oauth message's auth_url is an absolute https URL",
	Refs: []rules.Ref{
		{URL: "https://infinity.hydro.run/docs/rap/spec/server/oauth"},
	},
}, nil)

// Rules returns the RAP catalog entries (Dialect conv.RAP, Check nil).
func Rules() []rules.Rule { return set.Rules() }

// levels are the rules' levels, read once every declaration has run.
var levels = sync.OnceValue(func() map[string]rules.Level {
	m := map[string]rules.Level{}
	for _, r := range set.Rules() {
		m[r.ID] = r.Level
	}
	return m
})

// violation stamps a rule's level on a breach; an unknown id is a
// programming error caught by the catalog test.
func violation(id, path, msg string) rules.Violation {
	return rules.Violation{Rule: id, Level: levels()[id], Path: path, Message: msg, Order: -1}
}
