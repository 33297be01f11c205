package bedrock

import (
	"strings"

	"github.com/toolwire/toolwire/mockprovider/rules"
)

// The request as a whole: the model exists, the body decodes.

// RuleModelExists: the model id is one Bedrock serves (the server checks
// it for every dialect; ModelNotFound answers).
const RuleModelExists = "bedrock.model-exists"

func requestRules(s *rules.Set[Request]) {
	req := body(weatherTool, askWeather)
	s.Add(rules.Rule{ID: RuleModelExists, Level: rules.MUST, Family: "models",
		Summary: "The model id in the path is one Bedrock serves: a foundation model id or an inference profile (us., eu., apac., global. before it).",
		Refs: []rules.Ref{
			{URL: "https://github.com/iOfficeAI/AionCore/pull/377", Quote: `API error 400: {"message":"The provided model identifier is invalid."}`},
			{URL: "https://github.com/RooCodeInc/Roo-Code/issues/9182", Quote: "The provided model identifier is invalid."},
		},
		Cases: []rules.Case{{Name: "a bare model name", Path: "/model/sonnet/converse", GoodPath: casePath,
			Bad: req, Good: req, WantStatus: 400, WantMessage: msgModelInvalid}},
	}, nil)
	s.Add(rules.Rule{ID: RuleKnownFields, Level: rules.SHOULD, Family: "shapes",
		Summary: "Every member of the body should be one the Converse request defines (a snake_case max_tokens is not inferenceConfig.maxTokens); others are journaled and ignored: no capture shows Converse refusing one.",
		Refs: []rules.Ref{
			{URL: "https://github.com/aws/aws-sdk-go-v2/blob/service/bedrockruntime/v1.63.13/service/bedrockruntime/schemas/schemas.go", Quote: "ConverseRequest's members"},
			{Quote: "what Converse answers to a member it does not define", Inferred: true},
		},
		Cases: []rules.Case{{Name: "an OpenAI-style max_tokens", Path: casePath,
			Bad:  []byte(`{"messages":[` + askWeather + `],"max_tokens":100}`),
			Good: []byte(`{"messages":[` + askWeather + `],"inferenceConfig":{"maxTokens":100}}`)}},
	}, func(r *Request, _ *rules.Env) []rules.Violation {
		var out []rules.Violation
		for _, p := range r.Unknown {
			path := strings.Join(p, ".")
			out = append(out, rules.Violation{Order: rules.At(rules.PhaseRequest, 0), Path: path,
				Message: "toolwire: " + path + " is not a member of the Converse request; it was ignored"})
		}
		return out
	})
	s.Add(rules.Rule{ID: RuleFieldTypes, Level: rules.MUST, Family: "shapes",
		Summary: "Every member has the type the Converse request gives it.",
		Refs: []rules.Ref{
			{URL: "https://github.com/aws/aws-sdk-go-v2/blob/service/bedrockruntime/v1.63.13/service/bedrockruntime/schemas/schemas.go", Quote: "the members' shapes"},
			{URL: "https://github.com/sigoden/aichat/pull/1550", Quote: "The format of the value at messages.2.content.0.toolResult.content.0.json is invalid. Provide a json object for the field and try again."},
			{Quote: "the wording for other members, in the same form", Inferred: true},
		},
		Cases: []rules.Case{{Name: "a temperature as a string", Path: casePath,
			Bad:        []byte(`{"messages":[` + askWeather + `],"inferenceConfig":{"temperature":"warm"}}`),
			Good:       []byte(`{"messages":[` + askWeather + `],"inferenceConfig":{"temperature":0.5}}`),
			WantStatus: 400, WantMessage: "The value at inferenceConfig.temperature is invalid."}},
	}, nil)
	s.Add(rules.Rule{ID: RuleValidJSON, Level: rules.MUST, Family: "shapes",
		Summary: "The body is JSON.",
		Refs:    []rules.Ref{{Quote: "SerializationException and its wording are inferred", Inferred: true}},
		Cases: []rules.Case{{Name: "a body cut short", Path: casePath,
			Bad: []byte(`{"messages":[` + askWeather + `]`), Good: []byte(`{"messages":[` + askWeather + `]}`),
			WantStatus: 400, WantMessage: "Could not parse request body into json"}},
	}, nil)
}
