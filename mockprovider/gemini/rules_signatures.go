package gemini

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Thought signatures: on Gemini 3 the calls of the current turn come back
// with the signatures the model issued for them.

// Verbatim texts of the API (each rule's references say where seen).
const (
	MsgCorruptedSignature = "Corrupted thought signature."
	msgSignatureFormat    = "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)

// bypassSignatures are the documented dummy signatures that skip
// validation (https://ai.google.dev/gemini-api/docs/function-calling). Any non-empty signature
// passes the mock's check; these are listed so cases and docs name them.
var bypassSignatures = []string{"context_engineering_is_the_way_to_go", "skip_thought_signature_validator"}

func signatureRules(s *rules.Set[Request]) {
	unsigned := `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}}}]}`
	s.Add(rules.Rule{ID: "gemini.thought-signature", Level: rules.MUST, Family: "continuity",
		Feature: "signatures", Option: "--thought-signatures",
		Summary: "On Gemini 3 the first functionCall part of each step of the current turn carries its thoughtSignature (the two documented dummy values bypass validation).",
		Refs: []rules.Ref{
			{URL: "https://ai.google.dev/gemini-api/docs/thought-signatures"},
			{Quote: "position = 1-based content index", Inferred: true},
		},
		Cases: []rules.Case{
			{
				Name: "Gemini 3 call replayed without its signature", Path: path3,
				Bad:        body(weatherFn, userAsk, unsigned, sunnyReply),
				Good:       body(weatherFn, userAsk, `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"`+bypassSignatures[0]+`"}]}`, sunnyReply),
				WantStatus: 400, WantMessage: fmt.Sprintf(msgSignatureFormat, "get_weather", 2),
			},
			{
				Name: "parallel batch interleaved FC1,FR1,FC2,FR2 on Gemini 3", Path: path3,
				Bad: body(weatherFn, userAsk,
					`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"`+bypassSignatures[1]+`"}]}`,
					`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny"}}}]}`,
					`{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Rome"}}}]}`,
					`{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"rainy"}}}]}`),
				Good:       body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", bypassSignatures[1]), twoResponses("get_weather", "get_weather")),
				WantStatus: 400, WantMessage: fmt.Sprintf(msgSignatureFormat, "get_weather", 4),
			},
		},
	}, checkThoughtSignatures)

	// issued is a signature the mock issues for a get_weather call (the
	// HMAC over a fixed nonce).
	issued := mintSignature(wire.NewIDs("rulecases"), "get_weather")
	s.Add(rules.Rule{ID: "gemini.thought-signature-issued", Level: rules.MUST, Family: "continuity",
		Feature: "signatures", Option: "--thought-signatures",
		Summary: "On Gemini 3 a functionCall's thoughtSignature in the current turn is the one the model issued for that call, passed back unchanged (or a documented dummy value, as text or base64-encoded as a bytes field is).",
		Refs: []rules.Ref{
			{URL: "https://github.com/anomalyco/opencode/issues/4832", Quote: `"Corrupted thought signature."`},
			{URL: "https://github.com/heyhuynhgiabuu/proxypal/issues/119", Quote: "the same message"},
			{URL: "mockprovider/gemini/signature.go", Quote: "the mock's signatures are an HMAC of the call, so it knows which it issued"},
		},
		Cases: []rules.Case{
			{
				Name: "Gemini 3 call passed back with a signature the model did not issue", Path: path3,
				Bad:        body(weatherFn, userAsk, callParis, sunnyReply),
				Good:       body(weatherFn, userAsk, strings.Replace(callParis, "CiQBDDnWx8Q=", issued, 1), sunnyReply),
				WantStatus: 400, WantMessage: MsgCorruptedSignature,
			},
			{
				Name: "Gemini 3 call passed back with a forged signature (the base64 of a dummy value: accepted)", Path: path3,
				Bad:        body(weatherFn, userAsk, callParis, sunnyReply),
				Good:       body(weatherFn, userAsk, strings.Replace(callParis, "CiQBDDnWx8Q=", base64.StdEncoding.EncodeToString([]byte(bypassSignatures[0])), 1), sunnyReply),
				WantStatus: 400, WantMessage: MsgCorruptedSignature,
			},
		},
	}, checkSignaturesIssued)
}

// enforceSignatures applies the --thought-signatures option.
func enforceSignatures(r *Request, env *rules.Env) bool {
	switch options(env).ThoughtSignatures {
	case "always":
		return true
	case "never":
		return false
	}
	return model.IsGemini3(modelOf(r, env))
}

// currentTurnStart is the index after the last user content with standard
// content (text or media, not a function response): the Gemini 3 "current
// turn" whose calls are validated.
func currentTurnStart(r *Request) int {
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role == roleModel || isResponseTurn(c) {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != nil || p.InlineData != nil || p.FileData != nil {
				return i + 1
			}
		}
	}
	return 0
}

func checkThoughtSignatures(r *Request, env *rules.Env) []rules.Violation {
	if !enforceSignatures(r, env) {
		return nil
	}
	var out []rules.Violation
	for i := currentTurnStart(r); i < len(r.Contents); i++ {
		c := r.Contents[i]
		if c.Role != roleModel {
			continue
		}
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			// Only the first call of a step is signed; parallel siblings
			// carry none.
			if p.signature() == "" {
				out = append(out, turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].thoughtSignature", i, j), fmt.Sprintf(msgSignatureFormat, p.FunctionCall.Name, i+1)))
			}
			break
		}
	}
	return out
}

// checkSignaturesIssued: on Gemini 3, every signature on a functionCall
// of the current turn verifies as the mock's own for that call (the
// documented dummy values pass).
func checkSignaturesIssued(r *Request, env *rules.Env) []rules.Violation {
	if !enforceSignatures(r, env) {
		return nil
	}
	var out []rules.Violation
	for i := currentTurnStart(r); i < len(r.Contents); i++ {
		c := r.Contents[i]
		if c.Role != roleModel {
			continue
		}
		for j, p := range c.Parts {
			sig := p.ThoughtSignature
			if p.FunctionCall == nil || sig == nil || sig.Text == "" || isBypassSignature(sig) || issuedSignature(sig.Bytes, p.FunctionCall.Name) {
				continue
			}
			out = append(out, turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].thoughtSignature", i, j), MsgCorruptedSignature))
		}
	}
	return out
}
