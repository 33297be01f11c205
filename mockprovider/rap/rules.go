package rap

import (
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Rule IDs the runtime judges. The runtime, not rules.Run, decides them:
// they concern callbacks and timing, not one decoded request, so every
// catalog entry has a nil Check.
const (
	RuleToolsetManifest   = "rap.toolset-manifest"
	RuleToolsetUnique     = "rap.toolset-unique-names"
	RuleInvocationAck     = "rap.invocation-ack"
	RuleCallbackJSON      = "rap.callback-json"
	RuleCallbackType      = "rap.callback-type"
	RuleCallbackFields    = "rap.callback-fields"
	RuleGroupIDMatch      = "rap.group-id-match"
	RuleIDMatch           = "rap.id-match"
	RuleCallIDEcho        = "rap.call-id-echo"
	RuleDisplaySegment    = "rap.display-segment"
	RuleDiffPatch         = "rap.diff-patch"
	RuleDisplayTextLast   = "rap.display-text-last"
	RuleDisplayTextShort  = "rap.display-text-short"
	RuleErrorPrefix       = "rap.error-prefix"
	RuleNoStackTrace      = "rap.no-stack-trace"
	RuleNoSecrets         = "rap.no-secrets"
	RuleNoSilentDrop      = "rap.no-silent-drop"
	RuleDuplicateResult   = "rap.duplicate-result"
	RuleSingleResult      = "rap.single-result"
	RuleSubscriptionEvent = "rap.subscription-active"
	RuleOAuthHTTPS        = "rap.oauth-https"
)

const (
	revOption = "rap-revision"
)

var catalog = []rules.Rule{
	{ID: RuleToolsetManifest, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/toolsets",
		Summary: "GET {tool}/.well-known/rap-toolset answers a valid manifest (name 1-128 chars, endpoint, at least one tool, each with name, description and a compilable inputSchema object; annotations typed); an invalid toolset is rejected whole"},
	{ID: RuleToolsetUnique, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/toolsets",
		Summary: "tool names are unique within a toolset; a duplicate rejects the toolset whole"},
	{ID: RuleInvocationAck, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/transport; https://infinity.hydro.run/docs/rap/spec/basic/tool-invocation",
		Summary: "the tool answers an invocation with HTTP 200 at once; anything else is recorded as an error result (5xx and unreachable retried with backoff, 4xx never)"},
	{ID: RuleCallbackJSON, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Request); https://infinity.hydro.run/docs/rap/spec/basic/transport",
		Summary: "a callback is an HTTP POST with Content-Type: application/json and a JSON object body"},
	{ID: RuleCallbackType, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/overview (message types)", Option: revOption,
		Summary: "a callback's type is one the protocol revision defines (tool_result, subscription_event, oauth; user_choice and view_update from the newer revision)"},
	{ID: RuleCallbackFields, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Fields); https://infinity.hydro.run/docs/rap/spec/overview", Option: revOption,
		Summary: "a callback carries its type's required fields with the right JSON types (text, or content items in the newer revision)"},
	{ID: RuleGroupIDMatch, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Fields, Routing, Security Considerations)",
		Summary: "group_id matches the invocation's group_id; an unmatched message is logged and discarded, never injected into a conversation"},
	{ID: RuleIDMatch, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Fields, Routing, Security Considerations)",
		Summary: "id (tool_call_id for subscription events) matches a pending tool call; an unmatched message is logged and discarded"},
	{ID: RuleCallIDEcho, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Fields)",
		Summary: "when the invocation carried a call_id, the callback echoes it exactly"},
	{ID: RuleDisplaySegment, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Display Segments)", Option: revOption,
		Summary: "each display_as segment is an object with a string type and content: a string for text, {path, patch} strings for diff ({data, mediaType} for image in the newer revision)"},
	{ID: RuleDiffPatch, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Segment Type: diff)",
		Summary: "a diff segment's patch parses as a unified diff (---/+++ headers and at least one @@ hunk)"},
	{ID: RuleDisplayTextLast, Level: rules.SHOULD, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Rendering Behavior)",
		Summary: "display_as ends with a text segment as the universal fallback"},
	{ID: RuleDisplayTextShort, Level: rules.SHOULD, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Rendering Behavior)",
		Summary: "text segments are short: one line of at most 120 characters"},
	{ID: RuleErrorPrefix, Level: rules.SHOULD, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Error Handling, Error Conventions)",
		Summary: "an error is an ordinary tool_result whose text starts with \"Error: \" (judged when the caller expects an error or the text reads like one, e.g. \"error: …\", \"failed: …\")"},
	{ID: RuleNoStackTrace, Level: rules.SHOULD, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Error Conventions)",
		Summary: "results carry no stack traces (Go, Java, Python, JavaScript trace patterns)"},
	{ID: RuleNoSecrets, Level: rules.SHOULD, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Security Considerations)",
		Summary: "results carry no credentials: neither the invocation's own callback secret nor key-like strings (the seed says MUST NOT; detection is heuristic, so it is reported as SHOULD)"},
	{ID: RuleNoSilentDrop, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Error Handling); https://infinity.hydro.run/docs/rap/spec/basic/lifecycle", Option: "rap-deadline",
		Summary: "every invocation produces a tool_result (or first an oauth, or in the newer revision a user_choice) before the runtime's deadline"},
	{ID: RuleDuplicateResult, Level: rules.SHOULD, Source: "https://infinity.hydro.run/docs/rap/spec/basic/tool-result (Security Considerations); https://infinity.hydro.run/docs/rap/spec/basic/lifecycle",
		Summary: "a result is delivered once; an identical duplicate is acknowledged, counted and not delivered again"},
	{ID: RuleSingleResult, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/basic/lifecycle",
		Summary: "exactly one terminal tool_result per invocation; a second, different one is discarded"},
	{ID: RuleSubscriptionEvent, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/server/subscription-events",
		Summary: "subscription_events follow a tool_result with subscription: true and stop after the event marked final"},
	{ID: RuleOAuthHTTPS, Level: rules.MUST, Source: "https://infinity.hydro.run/docs/rap/spec/server/oauth",
		Summary: "an oauth message's auth_url is an absolute https URL"},
}

// Rules returns the RAP catalog entries (Dialect conv.RAP, Check nil).
func Rules() []rules.Rule {
	out := make([]rules.Rule, len(catalog))
	for i, r := range catalog {
		r.Dialect = conv.RAP
		out[i] = r
	}
	return out
}

var levels = func() map[string]rules.Level {
	m := map[string]rules.Level{}
	for _, r := range catalog {
		m[r.ID] = r.Level
	}
	return m
}()

// violation stamps a rule's level on a breach; an unknown id is a
// programming error caught by the catalog test.
func violation(id, path, msg string) rules.Violation {
	return rules.Violation{Rule: id, Level: levels[id], Path: path, Message: msg, Order: -1}
}
