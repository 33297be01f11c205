package dialect

import "encoding/json"

// RuleCase is a pair of requests for one rule: Bad breaks it, Good is the
// same request corrected. Every dialect exports its cases (RuleCases) so one
// shared test proves each catalog rule both catches its breach and passes
// the fix, and so fuzzing and the `check` command have real seeds.
type RuleCase struct {
	Rule string // catalog rule ID
	Name string // short description of the breach
	// Path is the endpoint path; "" means the dialect's first route (for
	// Gemini, use the full path with the model, e.g.
	// "/v1beta/models/gemini-3-flash-preview:generateContent").
	Path string
	// GoodPath, when set, is the Good request's path (a Gemini model
	// named in the path: an unknown one for Bad, a served one for Good).
	GoodPath string
	// Headers are sent with both requests (the API key is added by the
	// runner unless Headers sets one; Header value "-" removes a header the
	// runner would otherwise add).
	Headers map[string]string
	// Setup requests run first in the same session; Bad and Good may
	// reference their responses as {{setup:N:GJSON.PATH}}.
	Setup []json.RawMessage
	Bad   json.RawMessage
	Good  json.RawMessage
	// WantStatus and WantMessage are what the real API answers to Bad
	// (WantMessage may be a prefix; the runner also checks the envelope
	// shape and the X-Toolwire-Rule header). SHOULD rules leave WantStatus
	// 0: Bad must succeed and be journaled as a violation.
	WantStatus  int
	WantMessage string
}
