package bedrock

import (
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
	s.Add(rules.Rule{ID: RuleKnownFields, Level: rules.MUST, Family: "shapes",
		Summary: "Every member of the body is one the Converse request defines.",
		Refs: []rules.Ref{
			{URL: "https://github.com/aws/aws-sdk-go-v2/blob/service/bedrockruntime/v1.63.13/service/bedrockruntime/schemas/schemas.go", Quote: "ConverseRequest's members"},
			{Quote: "the wording of the refusal is inferred", Inferred: true},
		},
	}, nil)
	s.Add(rules.Rule{ID: RuleFieldTypes, Level: rules.MUST, Family: "shapes",
		Summary: "Every member has the type the Converse request gives it.",
		Refs: []rules.Ref{
			{URL: "https://github.com/aws/aws-sdk-go-v2/blob/service/bedrockruntime/v1.63.13/service/bedrockruntime/schemas/schemas.go", Quote: "the members' shapes"},
			{Quote: "the wording of the refusal is inferred", Inferred: true},
		},
	}, nil)
	s.Add(rules.Rule{ID: RuleValidJSON, Level: rules.MUST, Family: "shapes",
		Summary: "The body is JSON.",
		Refs:    []rules.Ref{{Quote: "SerializationException and its wording are inferred", Inferred: true}},
	}, nil)
}
