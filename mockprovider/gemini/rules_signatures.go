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

	// A sibling's signature: the model signs only the first call of a
	// parallel set, so a later one carries none; a value it did not issue
	// there is journaled until a capture shows what the API answers.
	siblingSigned := func(sig string) string {
		return `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + issued +
			`"},{"functionCall":{"name":"get_weather","args":{"city":"Rome"}},"thoughtSignature":"` + sig + `"}]}`
	}
	s.Add(rules.Rule{ID: "gemini.parallel-call-signature", Level: rules.SHOULD, Family: "continuity",
		Feature: "signatures", Option: "--thought-signatures",
		Summary: "On Gemini 3 a functionCall after the first of a parallel set should come back without a thoughtSignature (the model signs only the first), or with the one issued or a documented dummy value; another value is journaled: no public capture shows what the API answers to it.",
		Refs: []rules.Ref{
			{URL: "https://ai.google.dev/gemini-api/docs/thought-signatures", Quote: "for parallel function calls only the first functionCall part carries a signature"},
			{URL: "https://github.com/BerriAI/litellm/issues/37541", Quote: "the documented skip value on every parallel call is accepted"},
			{URL: "https://github.com/langchain-ai/langchainjs/blob/%40langchain/google-genai%402.3.2/libs/providers/langchain-google-genai/src/utils/common.ts#L525-L536", Quote: "a library that signs later parallel calls with a value of its own"},
			{Quote: "that the API accepts or refuses a foreign signature on a later parallel call", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "second parallel call passed back with a signature nobody issued", Path: path3,
			Bad:  body(weatherFn, userAsk, siblingSigned("RFVNTVlfU0lHTkFUVVJF"), twoResponses("get_weather", "get_weather")),
			Good: body(weatherFn, userAsk, twoCalls("get_weather", "get_weather", issued), twoResponses("get_weather", "get_weather")),
		}},
	}, checkSiblingSignatures)
}

// checkSiblingSignatures journals a signature on a parallel call after
// the first that the model did not issue.
func checkSiblingSignatures(r *Request, env *rules.Env) []rules.Violation {
	var out []rules.Violation
	eachForeignSignature(r, env, func(i, j int, first bool) {
		if !first {
			out = append(out, rules.Violation{Order: rules.At(rules.PhaseMeaning, i), Path: fmt.Sprintf("contents[%d].parts[%d].thoughtSignature", i, j),
				Message: "toolwire: a thoughtSignature the model did not issue on a parallel call after the first (the model signs only the first); what the API answers to it is not known"})
		}
	})
	return out
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
	shapes := r.contentShapes()
	for i := len(r.Contents) - 1; i >= 0; i-- {
		c := r.Contents[i]
		if c.Role == roleModel || shapes[i].isResponseTurn() {
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
	var out []rules.Violation
	eachForeignSignature(r, env, func(i, j int, first bool) {
		if first {
			out = append(out, turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].thoughtSignature", i, j), MsgCorruptedSignature))
		}
	})
	return out
}

// eachForeignSignature calls f for each functionCall part of the current
// turn whose signature the model did not issue (first: it is its
// content's first call, the one the model signs).
func eachForeignSignature(r *Request, env *rules.Env, f func(i, j int, first bool)) {
	if !enforceSignatures(r, env) {
		return
	}
	for i := currentTurnStart(r); i < len(r.Contents); i++ {
		c := r.Contents[i]
		if c.Role != roleModel {
			continue
		}
		first := true
		for j, p := range c.Parts {
			if p.FunctionCall == nil {
				continue
			}
			sig := p.ThoughtSignature
			if sig != nil && sig.Text != "" && !isBypassSignature(sig) && !issuedSignature(sig.Bytes, p.FunctionCall.Name) {
				f(i, j, first)
			}
			first = false
		}
	}
}
