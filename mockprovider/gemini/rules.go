package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The dialect's rules are declared one topic per file (rules_*.go): each
// rule with its check and its break/fix cases.

// ruleSet holds every rule of the dialect.
var ruleSet = declareRules()

// declareRules declares the topics in the order the API validates: JSON
// parsing, then the parsed request's members, then the conversation's
// turns. Breaches in one phase at one position are reported in this order.
func declareRules() *rules.Set[Request] {
	s := rules.NewSet[Request](conv.Gemini, "rules_payload.go", "rules_members.go", "rules_turns.go",
		"rules_signatures.go", "rules_multimodal.go", "rules_output.go", "rules_models.go")
	for _, topic := range []func(*rules.Set[Request]){
		payloadRules, memberRules, turnRules, signatureRules, multimodalRules, outputRules, modelRules,
	} {
		topic(s)
	}
	return s
}

// Rules returns the Gemini catalog.
func (d *Dialect) Rules() []rules.Rule { return catalog() }

// catalog is the dialect's rules in declaration order.
func catalog() []rules.Rule { return ruleSet.Rules() }

// RuleCases returns a breaking and a corrected request for every Gemini
// rule with a check (some rules have more than one breach worth showing).
func RuleCases() []rules.Case { return ruleSet.Cases() }

// The three phases of the API's validation, each a 400 INVALID_ARGUMENT.

// parseBreach is a breach the JSON parser meets: it stops the request
// before anything else is read.
func parseBreach(path, msg string) rules.Violation {
	return breach(rules.At(rules.PhaseRequest, 0), path, msg)
}

// memberBreach is a breach of the parsed request's members (contents,
// parts, tools, toolConfig), met before the turns are read.
func memberBreach(path, msg string) rules.Violation {
	return breach(rules.At(rules.PhaseShape, 0), path, msg)
}

// turnBreach is a breach of the conversation at contents[i]: the API reads
// the turns in order.
func turnBreach(i int, path, msg string) rules.Violation {
	return breach(rules.At(rules.PhaseMeaning, i), path, msg)
}

func breach(order int, path, msg string) rules.Violation {
	return rules.Violation{Order: order, Path: path, Message: msg, Status: http.StatusBadRequest, ErrType: statusInvalidArgument}
}

// modelOf is the model the request names, else the one the server saw.
func modelOf(r *Request, env *rules.Env) string {
	if r.Model != "" || env == nil {
		return r.Model
	}
	return env.Model
}

// options are the serve options the checks run under (the defaults when
// they run without a server).
func options(env *rules.Env) rules.Options {
	if env == nil {
		return rules.DefaultOptions()
	}
	return env.Options
}

const (
	refFunctionCalling = "https://ai.google.dev/gemini-api/docs/function-calling"
	refTypes           = "https://github.com/googleapis/go-genai/blob/v1.77.0/types.go"
)

// The cases post to these paths, with bodies built from these fragments.
// Gemini 3 history carries a dummy signature that bypasses validation, so
// only the rule under test can fail.
const (
	path25 = "/v1beta/models/gemini-2.5-flash:generateContent"
	path3  = "/v1beta/models/gemini-3-flash-preview:generateContent"
)

const (
	userAsk    = `{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}`
	userPhoto  = `{"role":"user","parts":[{"text":"Show me the photo of product PRD-001."}]}`
	weatherFn  = `{"functionDeclarations":[{"name":"get_weather","description":"Get current weather for a city.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}]}`
	photoFn    = `{"functionDeclarations":[{"name":"get_product_photo","description":"Retrieves the product photo.","parameters":{"type":"OBJECT","properties":{"product_id":{"type":"STRING"}},"required":["product_id"]}}]}`
	callParis  = `{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"CiQBDDnWx8Q="}]}`
	callPhoto  = `{"role":"model","parts":[{"functionCall":{"name":"get_product_photo","args":{"product_id":"PRD-001"}},"thoughtSignature":"skip_thought_signature_validator"}]}`
	pngBase64  = "iVBORw0KGgo="
	sunnyReply = `{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"sunny, 22C"}}}]}`
)

// body builds a request from contents and optional tools.
func body(tools string, contents ...string) json.RawMessage {
	s := `{"contents":[` + strings.Join(contents, ",") + `]`
	if tools != "" {
		s += `,"tools":[` + tools + `]`
	}
	return compact(s + "}")
}

func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(fmt.Sprintf("gemini: bad case JSON: %v\n%s", err, s))
	}
	return b.Bytes()
}

// twoCalls is a model turn with a parallel batch of two calls; sig, when
// set, signs the first.
func twoCalls(a, b, sig string) string {
	first := `{"functionCall":{"name":"` + a + `","args":{"city":"Paris"}}`
	if sig != "" {
		first += `,"thoughtSignature":"` + sig + `"`
	}
	return `{"role":"model","parts":[` + first + `},{"functionCall":{"name":"` + b + `","args":{"city":"Rome"}}}]}`
}

func twoResponses(a, b string) string {
	return `{"role":"user","parts":[{"functionResponse":{"name":"` + a + `","response":{"output":"first"}}},{"functionResponse":{"name":"` + b + `","response":{"output":"second"}}}]}`
}
