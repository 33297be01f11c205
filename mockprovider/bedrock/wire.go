package bedrock

import (
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The Converse request as the API reads it, member for member from the
// Smithy model github.com/aws/aws-sdk-go-v2/service/bedrockruntime
// serializes (schemas/schemas.go, ConverseRequest and the shapes below
// it; drift_test.go holds the two together). Unknown members are errors.
// Sub-shapes the mock does not act on (guardrails, caching, citations,
// video, audio…) are kept as Object: they must be JSON objects, their
// content is not checked.

// Request is a Converse or ConverseStream body plus what the path said.
type Request struct {
	ModelID                           string            `json:"modelId"`
	Messages                          []Message         `json:"messages"`
	System                            []SystemBlock     `json:"system"`
	InferenceConfig                   *InferenceConfig  `json:"inferenceConfig"`
	ToolConfig                        *ToolConfig       `json:"toolConfig"`
	GuardrailConfig                   Object            `json:"guardrailConfig"`
	AdditionalModelRequestFields      Object            `json:"additionalModelRequestFields"`
	PromptVariables                   map[string]Object `json:"promptVariables"`
	AdditionalModelResponseFieldPaths []string          `json:"additionalModelResponseFieldPaths"`
	RequestMetadata                   map[string]string `json:"requestMetadata"`
	PerformanceConfig                 Object            `json:"performanceConfig"`
	ServiceTier                       Object            `json:"serviceTier"`
	OutputConfig                      Object            `json:"outputConfig"`

	// Model is the model id of the path (URL-decoded).
	Model string `json:"-"`
	// Stream is set on /converse-stream.
	Stream bool `json:"-"`
	// BodyLen is the body's size, what the prompt estimate counts.
	BodyLen int `json:"-"`
	// Unknown lists the members a lenient decode skipped.
	Unknown [][]string `json:"-"`

	// kept are what the session keeps of each of Messages, one for one
	// (nil: the conversation and the message checks read Messages).
	kept []*keptMessage
}

// Message is one turn: role user or assistant.
type Message struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// Block is a ContentBlock union: one member is set.
type Block struct {
	Text             *string        `json:"text"`
	Image            *ImageBlock    `json:"image"`
	Document         *DocumentBlock `json:"document"`
	Video            Object         `json:"video"`
	Audio            Object         `json:"audio"`
	ToolUse          *ToolUse       `json:"toolUse"`
	ToolResult       *ToolResult    `json:"toolResult"`
	GuardContent     Object         `json:"guardContent"`
	CachePoint       Object         `json:"cachePoint"`
	ReasoningContent *Reasoning     `json:"reasoningContent"`
	CitationsContent Object         `json:"citationsContent"`
	SearchResult     Object         `json:"searchResult"`
	ToolAddition     Object         `json:"toolAddition"`
	ToolRemoval      Object         `json:"toolRemoval"`
}

// ImageBlock is an image: format png|jpeg|gif|webp, bytes base64 or an S3
// location.
type ImageBlock struct {
	Format string       `json:"format"`
	Source *ImageSource `json:"source"`
	Error  Object       `json:"error"`
}

// ImageSource is the image's bytes (base64 in JSON) or S3 location.
type ImageSource struct {
	Bytes      string `json:"bytes"`
	S3Location Object `json:"s3Location"`
}

// DocumentBlock is a document: pdf, csv, doc, docx, xls, xlsx, html, txt, md.
type DocumentBlock struct {
	Format    string          `json:"format"`
	Name      string          `json:"name"`
	Source    *DocumentSource `json:"source"`
	Context   string          `json:"context"`
	Citations Object          `json:"citations"`
}

// DocumentSource is the document's bytes, S3 location, text or blocks.
type DocumentSource struct {
	Bytes      string   `json:"bytes"`
	S3Location Object   `json:"s3Location"`
	Text       *string  `json:"text"`
	Content    []Object `json:"content"`
}

// ToolUse is a call the model made, sent back in an assistant turn.
type ToolUse struct {
	ToolUseID string         `json:"toolUseId"`
	Name      string         `json:"name"`
	Input     jsontext.Value `json:"input"`
	Type      string         `json:"type"`
}

// ToolResult answers a toolUse: content blocks and status success|error.
type ToolResult struct {
	ToolUseID string        `json:"toolUseId"`
	Content   []ResultBlock `json:"content"`
	Status    string        `json:"status"`
	Type      string        `json:"type"`
}

// ResultBlock is a ToolResultContentBlock union.
type ResultBlock struct {
	JSON         jsontext.Value `json:"json"`
	Text         *string        `json:"text"`
	Image        *ImageBlock    `json:"image"`
	Document     *DocumentBlock `json:"document"`
	Video        Object         `json:"video"`
	SearchResult Object         `json:"searchResult"`
}

// Reasoning is a ReasoningContentBlock: the text with its signature, or
// redacted bytes.
type Reasoning struct {
	ReasoningText   *ReasoningText `json:"reasoningText"`
	RedactedContent string         `json:"redactedContent"`
}

// ReasoningText is the model's reasoning and the signature that vouches
// for it.
type ReasoningText struct {
	Text      string `json:"text"`
	Signature string `json:"signature"`
}

// SystemBlock is a SystemContentBlock union.
type SystemBlock struct {
	Text         *string `json:"text"`
	GuardContent Object  `json:"guardContent"`
	CachePoint   Object  `json:"cachePoint"`
}

// InferenceConfig is the request's sampling and limits.
type InferenceConfig struct {
	MaxTokens     *int32   `json:"maxTokens"`
	Temperature   *float32 `json:"temperature"`
	TopP          *float32 `json:"topP"`
	StopSequences []string `json:"stopSequences"`
}

// ToolConfig declares the tools and the choice among them.
type ToolConfig struct {
	Tools      []Tool      `json:"tools"`
	ToolChoice *ToolChoice `json:"toolChoice"`
}

// Tool is a Tool union: a toolSpec, a system tool or a cache point.
type Tool struct {
	ToolSpec   *ToolSpec `json:"toolSpec"`
	SystemTool Object    `json:"systemTool"`
	CachePoint Object    `json:"cachePoint"`
}

// ToolSpec is one function.
type ToolSpec struct {
	Name        string       `json:"name"`
	Description *string      `json:"description"`
	InputSchema *InputSchema `json:"inputSchema"`
	Strict      *bool        `json:"strict"`
}

// InputSchema holds the JSON Schema of a tool's input.
type InputSchema struct {
	JSON jsontext.Value `json:"json"`
}

// ToolChoice is a union: auto {}, any {} or tool {name}.
type ToolChoice struct {
	Auto Object              `json:"auto"`
	Any  Object              `json:"any"`
	Tool *SpecificToolChoice `json:"tool"`
}

// SpecificToolChoice forces one tool.
type SpecificToolChoice struct {
	Name string `json:"name"`
}

// Object is a JSON object (or null) kept as sent, its members unread.
type Object = wirejson.Object
