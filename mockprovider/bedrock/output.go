package bedrock

import (
	"encoding/json"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// outputConfig is what the mock reads of outputConfig: the structured
// output Converse asks of the text answer, a JSON Schema carried as a
// string (JsonSchemaDefinition.schema,
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_JsonSchemaDefinition.html).
type outputConfig struct {
	TextFormat *struct {
		Type      string `json:"type"`
		Structure struct {
			JSONSchema *struct {
				Schema string `json:"schema"`
				Name   string `json:"name"`
			} `json:"jsonSchema"`
		} `json:"structure"`
	} `json:"textFormat"`
}

// outputDemand is the request's structured-output demand, or nil: none
// asked, or a schema that is no JSON object (the model then answers in
// free text; no capture shows Converse's refusal of one).
func outputDemand(r *Request) *conv.Output {
	if len(r.OutputConfig) == 0 {
		return nil
	}
	var oc outputConfig
	if json.Unmarshal(r.OutputConfig, &oc) != nil || oc.TextFormat == nil || oc.TextFormat.Type != "json_schema" {
		return nil
	}
	js := oc.TextFormat.Structure.JSONSchema
	if js == nil {
		return nil
	}
	var schema map[string]any
	if json.Unmarshal([]byte(js.Schema), &schema) != nil || schema == nil {
		return nil
	}
	return &conv.Output{Kind: conv.OutputJSONSchema, Name: js.Name, Schema: json.RawMessage(js.Schema)}
}
