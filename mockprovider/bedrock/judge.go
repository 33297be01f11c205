package bedrock

import (
	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/rules"
	"github.com/toolwire/toolwire/suite/checks"
)

// Sources the judge cites for the Converse API.
const (
	guide          = "https://docs.aws.amazon.com/bedrock/latest/userguide/tool-use-inference-call.html"
	toolChoiceDoc  = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html"
	resultDoc      = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultBlock.html (status: success | error)"
	resultBlockDoc = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolResultContentBlock.html (json, text, image, document, video)"
	limitSource    = "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html (maxTokens: the maximum number of tokens to allow in the generated response)"
	thinkingDocs   = "https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html (additionalModelRequestFields thinking {type: enabled, budget_tokens}, budget_tokens below maxTokens)"
)

// The variables the AWS SDKs read, which the driver contract sets: the
// service endpoint and static credentials, whose access key id names the
// session.
const (
	EnvEndpoint = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
	EnvKeyID    = "AWS_ACCESS_KEY_ID"
	EnvSecret   = "AWS_SECRET_ACCESS_KEY"
	EnvRegion   = "AWS_REGION"
)

var judge = dialect.Judge{
	DefaultModel: "us.anthropic.claude-haiku-4-5-20251001-v1:0",
	DriverEnv: func(serverURL, key string) map[string]string {
		return map[string]string{EnvEndpoint: serverURL, EnvKeyID: key, EnvSecret: "toolwire", EnvRegion: "us-east-1"}
	},
	// Added after the four others: drivers name it to be run on it.
	OptIn:        true,
	Guide:        guide,
	ForcedChoice: `toolChoice "any" or "tool"`,
	ChoiceShape:  `toolConfig.toolChoice {"tool": {"name": …}}`,
	// The mock leaves a call the limit cut out of its answer, as Gemini
	// does: nothing to run, so no truncated-call rule.
	TruncatedSignal: `stopReason "max_tokens"`,
	ErrorLevel:      rules.MUST, ErrorSummary: `A tool error (MCP isError) is sent as a toolResult with status "error"`, ErrorSource: resultDoc,
	ErrorWhy:           `data the model needs is lost: status "error" is how the API tells the model that the call failed; without it the error text reads as the tool's output`,
	ErrorForm:          `a toolResult with status "error"`,
	ErrorFix:           `set "status": "error" on the toolResult`,
	StructuredObjectIn: "a toolResult json block",
	LimitMember:        "inferenceConfig.maxTokens",
	ThinkingInLimit:    true,
	Thinking:           thinkingOf,
	ThinkingShape:      `additionalModelRequestFields {"thinking": {"type": "enabled", "budget_tokens": N}} (inferenceConfig.maxTokens above N)`,
	MatchSummary:       "Each toolResult references the toolUse it answers (by toolUseId): no result carries another call's data",
	MediaInResults:     dialect.Always,
	ResultPath:         resultPath,
	ExtraChecks: []dialect.JudgeCheck{
		{Check: checks.ToolChoiceSent, Level: rules.MUST, Feature: "tool-choice", Summary: `The request carries the toolChoice the task asks for ({"tool": {"name": …}} for a forced tool)`, Source: toolChoiceDoc},
		{Check: checks.CarriesMedia, Level: rules.SHOULD, Feature: "images", Summary: "Images and documents returned by a tool travel as image/document blocks inside the toolResult", Source: resultBlockDoc},
		{Check: checks.StructuredObject, Level: rules.SHOULD, Feature: "structured", Summary: "Structured tool output is sent as a json block of the toolResult, not as a JSON string", Why: "SHOULD: the data still reaches the model, as a JSON string; only its form is off", Source: resultBlockDoc},
		{Check: checks.MaxOutputTokensSent, Level: rules.MUST, Feature: "truncation", Summary: "The first request carries the task's max_output_tokens as inferenceConfig.maxTokens", Source: limitSource},
		{Check: checks.StructuredAnswer, Level: rules.MUST, Feature: "structured-output", Summary: `The request that gets the final answer carries the task's output schema as outputConfig {"textFormat": {"type": "json_schema", "structure": {"jsonSchema": {"schema": "<the schema as a JSON string>", "name"}}}}, and the driver reports that answer: JSON valid against the schema`, Source: "https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_OutputFormat.html (OutputConfig.textFormat: structured output parameters to control the model's text response)"},
		{Check: checks.ThinkingSent, Level: rules.MUST, Feature: "thinking", Summary: `Every request of a task with thinking carries additionalModelRequestFields {"thinking": {"type": "enabled", "budget_tokens": <the task's budget_tokens>}}`, Source: thinkingDocs},
	},
}

// thinkingOf reads additionalModelRequestFields.thinking {"type":
// "enabled", "budget_tokens": N}.
func thinkingOf(body []byte) (on bool, budget int64) {
	t := gjson.GetBytes(body, "additionalModelRequestFields.thinking")
	return t.Get("type").Str == "enabled", t.Get("budget_tokens").Int()
}

// Judge is what the conformance suite's judge knows of the Converse API.
func (d *Dialect) Judge() *dialect.Judge { return &judge }
