package anthropic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Structured outputs: the schema of output_config.format (or the
// deprecated output_format) and of every strict tool stays inside the
// subset the grammar compiler takes (schemasubset.go), and the model
// takes the member the request uses.

const (
	RuleSchemaClosedObjects  = "anthropic.schema-closed-objects"
	RuleSchemaKeywords       = "anthropic.schema-supported-keywords"
	RuleSchemaRecursive      = "anthropic.schema-not-recursive"
	RuleSchemaLimits         = "anthropic.schema-complexity-limits"
	RuleOutputFormatRemoved  = "anthropic.output-format-deprecated"
	RuleOutputFormatBeta     = "anthropic.output-format-beta-header"
	RuleOutputFormatBoth     = "anthropic.output-format-one-shape"
	RuleOutputModelSupported = "anthropic.model-supports-structured-outputs"
)

// refStructuredOutputs is the structured-outputs guide, whose "JSON
// Schema limitations" list the subset.
const refStructuredOutputs = "https://platform.claude.com/docs/en/build-with-claude/structured-outputs"

// refStrictTools says strict tools compile through the same pipeline.
const refStrictTools = "https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use"

// outputFeature tags the rules with the structured-output scenarios'
// feature (scenario.FeatureStructuredOutput): the suite judges a rule only
// on scenarios of its feature, and for drivers that declare it.
const outputFeature = "structured-output"

// The cases' fragments: a question, a closed report schema, and a body
// around them.
const (
	reportSchema  = `{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"number"}},"required":["city","temperature"],"additionalProperties":false}`
	reportOpen    = `{"type":"object","properties":{"city":{"type":"string"},"temperature":{"type":"number"}},"required":["city","temperature"]}`
	askReport     = `"messages":[{"role":"user","content":"Report the weather in Paris."}]`
	strictToolFmt = `"tools":[{"name":"get_weather","strict":true,"input_schema":%s}],`
)

// outputBody is a request for model with extra members before its
// messages.
func outputBody(model, extra string) json.RawMessage {
	return json.RawMessage(`{"model":"` + model + `","max_tokens":1024,` + extra + askReport + `}`)
}

// withFormat is output_config.format with schema.
func withFormat(schema string) string {
	return `"output_config":{"format":{"type":"json_schema","schema":` + schema + `}},`
}

// withLegacyFormat is the deprecated output_format with schema.
func withLegacyFormat(schema string) string {
	return `"output_format":{"type":"json_schema","schema":` + schema + `},`
}

// strictTool declares get_weather strict with schema.
func strictTool(schema string) string { return fmt.Sprintf(strictToolFmt, schema) }

// locationSchema is get_weather's input, closed or with extra members.
func locationSchema(extra string) string {
	return `{"type":"object","properties":{"location":{"type":"string"` + extra + `}},"required":["location"],"additionalProperties":false}`
}

// betaHeader sends the structured-outputs beta.
var betaHeader = map[string]string{"anthropic-beta": structuredBeta}

func outputRules(s *rules.Set[Request]) {
	s.Add(rules.Rule{ID: RuleSchemaClosedObjects, Level: rules.MUST, Family: "shapes", Feature: outputFeature,
		Summary: "Every object in an output schema (output_config.format, output_format) or a strict tool's input_schema sets additionalProperties: false.",
		Refs: []rules.Ref{
			{URL: refStructuredOutputs, Quote: "JSON Schema limitations: additionalProperties (must be set to false for objects)"},
			{URL: "https://github.com/veryfront/veryfront-code/issues/3918", Quote: "output_config.format unconditionally requires additionalProperties: false on every object-typed (sub)schema ... rejected by the live Anthropic API with a 400"},
			{URL: "https://github.com/future-agi/future-agi/pull/412", Quote: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"},
			{URL: "https://github.com/vercel/ai/issues/20681", Quote: "tools.0.custom: For 'object' type, 'additionalProperties' must be explicitly set to false (a nested open object too)"},
			{URL: refStrictTools, Quote: "Strict tool use compiles tool input_schema definitions into grammars using the same pipeline as structured outputs"},
		},
		Cases: []rules.Case{
			{Name: "an output schema without additionalProperties",
				Bad: outputBody("claude-haiku-4-5", withFormat(reportOpen)), Good: outputBody("claude-haiku-4-5", withFormat(reportSchema)),
				WantStatus: 400, WantMessage: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"},
			{Name: "an open object nested in an array of the output schema",
				Bad:        outputBody("claude-sonnet-4-5", withFormat(`{"type":"object","properties":{"days":{"type":"array","items":{"type":"object","properties":{"t":{"type":"number"}},"required":["t"]}}},"required":["days"],"additionalProperties":false}`)),
				Good:       outputBody("claude-sonnet-4-5", withFormat(`{"type":"object","properties":{"days":{"type":"array","items":{"type":"object","properties":{"t":{"type":"number"}},"required":["t"],"additionalProperties":false}}},"required":["days"],"additionalProperties":false}`)),
				WantStatus: 400, WantMessage: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"},
			{Name: "a strict tool whose input_schema allows additional properties",
				Bad:        outputBody("claude-haiku-4-5", strictTool(`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":true}`)),
				Good:       outputBody("claude-haiku-4-5", strictTool(locationSchema(""))),
				WantStatus: 400, WantMessage: "tools.0.custom: For 'object' type, 'additionalProperties' must be explicitly set to false"},
		},
	}, checkSchemas(openObjectProblem))

	s.Add(rules.Rule{ID: RuleSchemaKeywords, Level: rules.MUST, Family: "shapes", Feature: outputFeature,
		Summary: "An output schema or a strict tool's input_schema uses no constraint the grammar cannot enforce: numeric bounds, string lengths, array bounds beyond minItems 0 or 1, property counts.",
		Refs: []rules.Ref{
			{URL: refStructuredOutputs, Quote: "Not supported: numerical constraints (minimum, maximum, multipleOf), string constraints (minLength, maxLength), array constraints beyond minItems of 0 or 1"},
			{URL: "https://github.com/agentjido/req_llm/issues/302", Quote: "output_format.schema: For 'integer' type, property 'minimum' is not supported"},
			{URL: "https://github.com/sherifkozman/the-llm-council/pull/55", Quote: "output_config.format.schema: For 'number' type, properties maximum, minimum are not supported"},
			{URL: "https://github.com/BerriAI/litellm/pull/33981", Quote: "output_format.schema: For 'array' type, property 'uniqueItems' is not supported"},
			{URL: "https://github.com/ghostlobster/memorize-everything/issues/93", Quote: "output_config.format.schema: For 'array' type, 'minItems' values other than 0 or 1 are not supported"},
			{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v2.15.0/schemautil.go", Quote: "supportedSchemaKeys: the keywords the SDK keeps when it transforms a schema"},
			{Quote: "the string and object wordings, and the tools.N.custom prefix for a strict tool, follow the evidenced ones", Inferred: true},
		},
		Cases: []rules.Case{
			{Name: "minimum on an integer of the deprecated output_format",
				Headers:    betaHeader,
				Bad:        outputBody("claude-haiku-4-5", withLegacyFormat(`{"type":"object","properties":{"age":{"type":"integer","minimum":0}},"required":["age"],"additionalProperties":false}`)),
				Good:       outputBody("claude-haiku-4-5", withLegacyFormat(`{"type":"object","properties":{"age":{"type":"integer"}},"required":["age"],"additionalProperties":false}`)),
				WantStatus: 400, WantMessage: "output_format.schema: For 'integer' type, property 'minimum' is not supported"},
			{Name: "numeric bounds on a number",
				Bad:        outputBody("claude-opus-4-6", withFormat(`{"type":"object","properties":{"score":{"type":"number","minimum":0,"maximum":1}},"required":["score"],"additionalProperties":false}`)),
				Good:       outputBody("claude-opus-4-6", withFormat(`{"type":"object","properties":{"score":{"type":"number"}},"required":["score"],"additionalProperties":false}`)),
				WantStatus: 400, WantMessage: "output_config.format.schema: For 'number' type, properties maximum, minimum are not supported"},
			{Name: "uniqueItems on an array",
				Bad:        outputBody("claude-sonnet-4-5", withFormat(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true}},"required":["tags"],"additionalProperties":false}`)),
				Good:       outputBody("claude-sonnet-4-5", withFormat(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}},"required":["tags"],"additionalProperties":false}`)),
				WantStatus: 400, WantMessage: "output_config.format.schema: For 'array' type, property 'uniqueItems' is not supported"},
			{Name: "minItems 8 on an array",
				Bad:        outputBody("claude-haiku-4-5", withFormat(`{"type":"object","properties":{"cards":{"type":"array","items":{"type":"string"},"minItems":8}},"required":["cards"],"additionalProperties":false}`)),
				Good:       outputBody("claude-haiku-4-5", withFormat(`{"type":"object","properties":{"cards":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["cards"],"additionalProperties":false}`)),
				WantStatus: 400, WantMessage: "output_config.format.schema: For 'array' type, 'minItems' values other than 0 or 1 are not supported"},
			{Name: "maxLength on a strict tool's string",
				Bad:        outputBody("claude-haiku-4-5", strictTool(locationSchema(`,"maxLength":80`))),
				Good:       outputBody("claude-haiku-4-5", strictTool(locationSchema(""))),
				WantStatus: 400, WantMessage: "tools.0.custom: For 'string' type, property 'maxLength' is not supported"},
		},
	}, checkSchemas(keywordProblem))

	s.Add(rules.Rule{ID: RuleSchemaRecursive, Level: rules.SHOULD, Family: "shapes", Feature: outputFeature,
		Summary: "An output schema or a strict tool's input_schema should not be recursive (journaled: the docs list recursive schemas as not supported; no capture shows the API's answer).",
		Refs: []rules.Ref{
			{URL: refStructuredOutputs, Quote: "Not supported: Recursive schemas"},
			{Quote: "a refusal not seen, text in the API's style", Inferred: true},
		},
		Cases: []rules.Case{{Name: "a definition that references itself",
			Bad:  outputBody("claude-haiku-4-5", withFormat(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],"additionalProperties":false,"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name","children"],"additionalProperties":false}}}`)),
			Good: outputBody("claude-haiku-4-5", withFormat(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],"additionalProperties":false,"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}}`)),
		}},
	}, checkRecursive)

	s.Add(rules.Rule{ID: RuleSchemaLimits, Level: rules.SHOULD, Family: "shapes", Feature: outputFeature,
		Summary: "A request should stay within the schema complexity limits: 20 strict tools, 24 optional parameters and 16 union-typed parameters across its strict tools and output schema (journaled: the API's full text for each limit is not captured).",
		Refs: []rules.Ref{
			{URL: refStructuredOutputs, Quote: "Schema complexity limits: strict tools per request 20, optional parameters 24, parameters with union types 16"},
			{URL: "https://github.com/camel-ai/camel/pull/4171", Quote: "20 strict tools, 24 optional parameters, and 16 union parameters across strict schemas ... rejected before inference with `Too many strict tools`"},
			{URL: "https://github.com/genkit-ai/genkit/issues/5230", Quote: "Schema is too complex for compilation. Try reducing the number of tools or simplifying tool schemas."},
			{Quote: "which text answers which limit", Inferred: true},
		},
		Cases: []rules.Case{
			{Name: "21 strict tools", Bad: outputBody("claude-haiku-4-5", strictTools(21)), Good: outputBody("claude-haiku-4-5", strictTools(20))},
			{Name: "25 optional properties in the output schema",
				Bad: outputBody("claude-haiku-4-5", withFormat(optionalSchema(25))), Good: outputBody("claude-haiku-4-5", withFormat(optionalSchema(24)))},
		},
	}, checkLimits)

	s.Add(rules.Rule{ID: RuleOutputFormatRemoved, Level: rules.MUST, Family: "models", Feature: outputFeature,
		Summary: "The deprecated output_format is refused by the models that no longer take it (the catalog's structured_outputs; Opus 4.7): use output_config.format.",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/claude-plugins-official/issues/2098", Quote: "beta header structured-outputs-2025-11-13, claude-opus-4-7, top-level output_format: 400 output_format: This field is deprecated. Use 'output_config.format' instead."},
			{URL: "https://github.com/prism-php/prism/issues/912", Quote: "output_format: This field is deprecated. Use 'output_config.format' instead. See https://platform.claude.com/docs/en/build-with-claude/structured-outputs for more information."},
			{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v2.15.0/betamessage.go", Quote: "OutputFormat: Deprecated: Use output_config.format instead ... will be removed in a future release"},
		},
		Cases: []rules.Case{{Name: "output_format on Opus 4.7", Headers: betaHeader,
			Bad: outputBody("claude-opus-4-7", withLegacyFormat(reportSchema)), Good: outputBody("claude-opus-4-7", withFormat(reportSchema)),
			WantStatus: 400, WantMessage: outputFormatDeprecated}},
	}, checkOutputFormatRemoved)

	s.Add(rules.Rule{ID: RuleOutputFormatBeta, Level: rules.SHOULD, Family: "shapes", Feature: outputFeature,
		Summary: "The deprecated output_format should come with its beta, anthropic-beta: structured-outputs-2025-11-13 (journaled: no capture shows the API refusing it without).",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v2.15.0/beta.go", Quote: `AnthropicBetaStructuredOutputs2025_11_13 AnthropicBeta = "structured-outputs-2025-11-13"`},
			{URL: "https://github.com/UKGovernmentBEIS/inspect_ai/pull/4442", Quote: "adds the structured-outputs-2025-11-13 beta header when any tool in the request is strict"},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{Name: "output_format without the beta",
			Bad: outputBody("claude-haiku-4-5", withLegacyFormat(reportSchema)), Good: outputBody("claude-haiku-4-5", withFormat(reportSchema))}},
	}, checkOutputFormatBeta)

	s.Add(rules.Rule{ID: RuleOutputFormatBoth, Level: rules.SHOULD, Family: "shapes", Feature: outputFeature,
		Summary: "A request should give its output schema once, in output_config.format, not also in output_format (journaled; the answer follows output_config.format).",
		Refs: []rules.Ref{
			{URL: "https://github.com/anthropics/anthropic-sdk-go/blob/v2.15.0/betamessage.go", Quote: "Set the schema on either BetaMessageNewParams.OutputConfig.Format or the deprecated BetaMessageNewParams.OutputFormat, not both."},
			{Quote: "how the API answers both", Inferred: true},
		},
		Cases: []rules.Case{{Name: "both shapes at once", Headers: betaHeader,
			Bad:  outputBody("claude-haiku-4-5", withFormat(reportSchema)+withLegacyFormat(reportSchema)),
			Good: outputBody("claude-haiku-4-5", withFormat(reportSchema))}},
	}, checkOutputFormatBoth)

	s.Add(rules.Rule{ID: RuleOutputModelSupported, Level: rules.SHOULD, Family: "models", Feature: outputFeature,
		Summary: "Structured outputs (an output schema, strict tools) need a model that has them (the catalog's structured_outputs: Haiku 4.5, Sonnet 4.5, Opus 4.5 and later); journaled: the API's text for an older model is not captured.",
		Refs: []rules.Ref{
			{URL: refStructuredOutputs, Quote: "generally available on the Claude API for Claude Opus 4.6, Claude Sonnet 4.6, Claude Sonnet 4.5, Claude Opus 4.5, and Claude Haiku 4.5"},
			{URL: "https://github.com/dhyansraj/mcp-mesh/issues/1341", Quote: "pre-4.5 Haiku (3.x) stays correctly excluded (it genuinely rejects the field — a wrong add would 400)"},
			{Quote: "the refusal's text", Inferred: true},
		},
		Cases: []rules.Case{{Name: "output_config.format on Claude Haiku 3.5",
			Bad: outputBody("claude-3-5-haiku-20241022", withFormat(reportSchema)), Good: outputBody("claude-haiku-4-5", withFormat(reportSchema))}},
	}, checkOutputModel)
}

// outputFormatDeprecated is the API's text for output_format on a model
// that no longer takes it.
const outputFormatDeprecated = "output_format: This field is deprecated. Use 'output_config.format' instead. See https://platform.claude.com/docs/en/build-with-claude/structured-outputs for more information."

// strictTools declares n strict tools, each closed.
func strictTools(n int) string {
	tools := make([]string, n)
	for i := range tools {
		tools[i] = `{"name":"tool_` + strconv.Itoa(i) + `","strict":true,"input_schema":` + locationSchema("") + `}`
	}
	return `"tools":[` + strings.Join(tools, ",") + `],`
}

// optionalSchema is a closed object of n optional string properties.
func optionalSchema(n int) string {
	props := make([]string, n)
	for i := range props {
		props[i] = `"p` + strconv.Itoa(i) + `":{"type":"string"}`
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `},"additionalProperties":false}`
}

// compiledSchema is one schema the grammar compiler takes, with the path
// the API's messages begin with.
type compiledSchema struct {
	path   string
	schema any // decoded once, for every check (parseSchema)
}

// compiledSchemas are the request's output schemas and strict tools'
// input schemas, in the order the API reads them: the tools, then the
// output format.
func (r *Request) compiledSchemas() []compiledSchema { return r.compiled }

// readCompiledSchemas decodes the schemas compiledSchemas lists.
func (r *Request) readCompiledSchemas() []compiledSchema {
	var out []compiledSchema
	for i, t := range r.Tools {
		if t.Strict {
			out = append(out, compiledSchema{path: "tools." + strconv.Itoa(r.customIndex[i]) + ".custom", schema: parseSchema(t.Parameters)})
		}
	}
	for _, f := range []*outputFormat{r.out.Config, r.out.Legacy} {
		if f != nil {
			out = append(out, compiledSchema{path: f.Path + ".schema", schema: parseSchema(f.Schema)})
		}
	}
	return out
}

// checkSchemas reports the first compiled schema problem finds fault with.
func checkSchemas(problem func(any) string) func(*Request, *rules.Env) []rules.Violation {
	return func(r *Request, _ *rules.Env) []rules.Violation {
		for _, s := range r.compiledSchemas() {
			if msg := problem(s.schema); msg != "" {
				return []rules.Violation{requestBreach(s.path, s.path+": "+msg)}
			}
		}
		return nil
	}
}

func checkRecursive(r *Request, _ *rules.Env) []rules.Violation {
	for _, s := range r.compiledSchemas() {
		if recursiveRef(s.schema) {
			return []rules.Violation{requestBreach(s.path, s.path+": recursive schemas are not supported")}
		}
	}
	return nil
}

func checkLimits(r *Request, _ *rules.Env) []rules.Violation {
	strict, optional, union := 0, 0, 0
	for _, s := range r.compiledSchemas() {
		if strings.HasPrefix(s.path, "tools.") {
			strict++
		}
		o, u := paramCounts(s.schema)
		optional, union = optional+o, union+u
	}
	var msg string
	switch {
	case strict > maxStrictTools:
		msg = fmt.Sprintf("Too many strict tools (%d). The maximum number of strict tools is %d.", strict, maxStrictTools)
	case optional > maxOptionalParams:
		msg = fmt.Sprintf("Too many optional parameters across strict tools and output schemas (%d). The maximum is %d.", optional, maxOptionalParams)
	case union > maxUnionParams:
		msg = fmt.Sprintf("Too many parameters with union types across strict tools and output schemas (%d). The maximum is %d.", union, maxUnionParams)
	default:
		return nil
	}
	return []rules.Violation{requestBreach("tools", msg)}
}

func checkOutputFormatRemoved(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if r.out.Legacy == nil || !m.RefusesStructuredOutput("output_format") || m.RefusesStructuredOutput("output_config") {
		return nil // a model with no structured outputs at all is RuleOutputModelSupported's
	}
	return []rules.Violation{requestBreach("output_format", outputFormatDeprecated)}
}

func checkOutputFormatBeta(r *Request, _ *rules.Env) []rules.Violation {
	if r.out.Legacy == nil || contains(r.Betas, structuredBeta) {
		return nil
	}
	return []rules.Violation{requestBreach("output_format", "output_format is the structured-outputs beta's member: send anthropic-beta: "+structuredBeta+", or use output_config.format.")}
}

func checkOutputFormatBoth(r *Request, _ *rules.Env) []rules.Violation {
	if r.out.Config == nil || r.out.Legacy == nil {
		return nil
	}
	return []rules.Violation{requestBreach("output_format", "output_format: the output schema is also given in output_config.format; send it once, in output_config.format.")}
}

func checkOutputModel(r *Request, env *rules.Env) []rules.Violation {
	m := env.Catalog()
	if !m.RefusesStructuredOutput("output_config") || !m.RefusesStructuredOutput("output_format") {
		return nil
	}
	if f := r.out.format(); f != nil {
		return []rules.Violation{requestBreach(f.Path, fmt.Sprintf("%s: %s does not support structured outputs.", f.Path, r.Model))}
	}
	for i, t := range r.Tools {
		if t.Strict {
			path := "tools." + strconv.Itoa(r.customIndex[i]) + ".custom.strict"
			return []rules.Violation{requestBreach(path, fmt.Sprintf("%s: %s does not support strict tool use.", path, r.Model))}
		}
	}
	return nil
}
