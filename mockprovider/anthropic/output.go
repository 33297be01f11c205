package anthropic

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// Structured outputs: output_config.format ({"type":"json_schema",
// "schema":{…}}), or the earlier beta member output_format of the same
// shape, which the SDK still sends (anthropic-sdk-go v2.15.0
// betamessage.go BetaMessageNewParams.OutputFormat: "Deprecated: Use
// output_config.format instead").
// https://platform.claude.com/docs/en/build-with-claude/structured-outputs

// structuredBeta is the beta the output_format shape was launched under
// (anthropic-sdk-go v2.15.0 beta.go AnthropicBetaStructuredOutputs2025_11_13).
const structuredBeta = "structured-outputs-2025-11-13"

// outputFormat is one of the two members as sent.
type outputFormat struct {
	// Path is the member's dotted path ("output_config.format",
	// "output_format"), which the API's messages begin with.
	Path   string
	Schema json.RawMessage
}

// outputParams are the structured-output members the rules read.
type outputParams struct {
	Config *outputFormat // output_config.format
	Legacy *outputFormat // output_format
}

// format is the member that shapes the answer: output_config.format when
// both are sent (the SDK's auto-parse prefers it too, betaparse.go
// outputFormatDest).
func (p *outputParams) format() *outputFormat {
	if p.Config != nil {
		return p.Config
	}
	return p.Legacy
}

// readOutputFormat checks what decoding cannot (the required members, the
// type's one value) for the member at path.
func readOutputFormat(path string, f *wJSONOutputFormat) (*outputFormat, *wire.APIError) {
	if f == nil {
		return nil, nil
	}
	switch {
	case f.Type == nil:
		return nil, invalidRule(RuleRequiredFields, path+".type: "+required)
	case *f.Type != "json_schema":
		return nil, invalidRule(RuleFieldTypes, path+".type: Input should be 'json_schema'")
	case f.Schema == nil:
		return nil, invalidRule(RuleRequiredFields, path+".schema: "+required)
	case f.Schema.Kind() != '{':
		return nil, invalidRule(RuleFieldTypes, path+".schema: "+notObject)
	}
	return &outputFormat{Path: path, Schema: json.RawMessage(f.Schema)}, nil
}

// readOutput reads both members of w.
func readOutput(w *wireRequest) (outputParams, *wire.APIError) {
	var p outputParams
	var err *wire.APIError
	if w.OutputConfig != nil {
		if p.Config, err = readOutputFormat("output_config.format", w.OutputConfig.Format); err != nil {
			return p, err
		}
	}
	p.Legacy, err = readOutputFormat("output_format", w.OutputFormat)
	return p, err
}

// output is the demand the model shapes the final answer by (nil when
// the request makes none).
func (r *Request) output() *conv.Output {
	f := r.out.format()
	if f == nil {
		return nil
	}
	return &conv.Output{Kind: conv.OutputJSONSchema, Schema: f.Schema}
}
