package gemini

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// The request as the API reads it: the generateContent body, typed all the
// way down from what google.golang.org/genai's converters (models.go,
// generateContentParametersToMldev and …ToVertex) write. Unknown members
// are errors, as on the real API.
//
// Field names: the API parses proto JSON, which takes a field's
// lowerCamelCase json_name and its snake_case proto name alike
// (functionDeclarations and function_declarations). Every field is tagged
// `case:ignore`, so the library matches names ignoring case, '_' and '-':
// both proto spellings decode, and so do other case variants the real API
// would reject (FunctionDeclarations) — the price of not hand-writing a
// name matcher, and never a 400 the real API would not give.
//
// Sub-messages of tools and features the mock does not act on (Google
// Search, code execution, speech, image output…) are kept as Object:
// they must be JSON objects, their content is not checked.

// Request is a decoded generateContent body plus what the path said.
type Request struct {
	BodyModel         string            `json:"model,case:ignore"`
	Contents          []Content         `json:"contents,case:ignore"`
	SystemInstruction *Content          `json:"systemInstruction,case:ignore"`
	Tools             []Tool            `json:"tools,case:ignore"`
	ToolConfig        *ToolConfig       `json:"toolConfig,case:ignore"`
	SafetySettings    []SafetySetting   `json:"safetySettings,case:ignore"`
	GenerationConfig  *GenerationConfig `json:"generationConfig,case:ignore"`
	CachedContent     string            `json:"cachedContent,case:ignore"`
	Labels            map[string]string `json:"labels,case:ignore"`
	ServiceTier       string            `json:"serviceTier,case:ignore"`
	ContinuationToken string            `json:"continuationToken,case:ignore"`
	Store             *bool             `json:"store,case:ignore"`
	ModelArmorConfig  Object            `json:"modelArmorConfig,case:ignore"`
	OutputConfig      Object            `json:"outputConfig,case:ignore"`

	// Model is the model named in the path (without "models/").
	Model string `json:"-"`
	// Method is generateContent, streamGenerateContent or countTokens.
	Method string `json:"-"`
	// SSE is set when a stream was asked for with ?alt=sse; without it the
	// API streams one JSON array instead.
	SSE bool `json:"-"`
	// BodyLen is the size of the body, what the prompt estimate counts.
	BodyLen int `json:"-"`
	// turns and shapes are what the conversation and the rules read of
	// each content, made once (derived.go); a session keeps them with
	// the content for the requests that resend it (resumed.go).
	turns  []conv.Turn    `json:"-"`
	shapes []contentShape `json:"-"`
	// paired is what the pairing rules find, made with the shapes.
	paired *pairingVerdicts `json:"-"`
	// Unknown lists the members a lenient decode skipped.
	Unknown []unknownMember `json:"-"`
}

// Content is one turn.
type Content struct {
	Role  string `json:"role,case:ignore"`
	Parts []Part `json:"parts,case:ignore"`
}

// Part is one piece of a turn; one data field is expected set.
type Part struct {
	Text                *string           `json:"text,case:ignore"`
	Thought             bool              `json:"thought,case:ignore"`
	ThoughtSignature    *Signature        `json:"thoughtSignature,case:ignore"`
	FunctionCall        *FunctionCall     `json:"functionCall,case:ignore"`
	FunctionResponse    *FunctionResponse `json:"functionResponse,case:ignore"`
	InlineData          *Blob             `json:"inlineData,case:ignore"`
	FileData            *FileData         `json:"fileData,case:ignore"`
	VideoMetadata       *VideoMetadata    `json:"videoMetadata,case:ignore"`
	MediaResolution     *MediaResolution  `json:"mediaResolution,case:ignore"`
	MediaProcessing     string            `json:"mediaProcessing,case:ignore"`
	ExecutableCode      Object            `json:"executableCode,case:ignore"`
	CodeExecutionResult Object            `json:"codeExecutionResult,case:ignore"`
	ToolCall            Object            `json:"toolCall,case:ignore"`
	ToolResponse        Object            `json:"toolResponse,case:ignore"`
	PartMetadata        Object            `json:"partMetadata,case:ignore"`
	AudioTranscription  Object            `json:"audioTranscription,case:ignore"`
	SpeechMetadata      Object            `json:"speechMetadata,case:ignore"`
}

// FunctionCall is a call the model made, as sent back in history. Args is
// a google.protobuf.Struct: kept raw so that a string or list is judged by
// the function-call-args-object rule with the API's own words.
type FunctionCall struct {
	ID           string         `json:"id,case:ignore"`
	Name         string         `json:"name,case:ignore"`
	Args         jsontext.Value `json:"args,case:ignore"`
	PartialArgs  []PartialArg   `json:"partialArgs,case:ignore"`
	WillContinue *bool          `json:"willContinue,case:ignore"`
}

// PartialArg is a streamed piece of a call's arguments (Vertex AI).
type PartialArg struct {
	JSONPath     string   `json:"jsonPath,case:ignore"`
	StringValue  string   `json:"stringValue,case:ignore"`
	NumberValue  *float64 `json:"numberValue,case:ignore"`
	BoolValue    *bool    `json:"boolValue,case:ignore"`
	NullValue    string   `json:"nullValue,case:ignore"`
	WillContinue *bool    `json:"willContinue,case:ignore"`
}

// FunctionResponse is a tool's answer; Response is a Struct, raw for the
// function-response-object rule.
type FunctionResponse struct {
	ID           string                 `json:"id,case:ignore"`
	Name         string                 `json:"name,case:ignore"`
	Response     jsontext.Value         `json:"response,case:ignore"`
	Parts        []FunctionResponsePart `json:"parts,case:ignore"`
	WillContinue *bool                  `json:"willContinue,case:ignore"`
	Scheduling   string                 `json:"scheduling,case:ignore"`
}

// FunctionResponsePart is a multimodal attachment of a function response
// (Gemini 3).
type FunctionResponsePart struct {
	InlineData      *Blob     `json:"inlineData,case:ignore"`
	FileData        *FileData `json:"fileData,case:ignore"`
	MediaProcessing string    `json:"mediaProcessing,case:ignore"`
}

// Blob is inline base64 media.
type Blob struct {
	MIMEType    string `json:"mimeType,case:ignore"`
	Data        string `json:"data,case:ignore"`
	DisplayName string `json:"displayName,case:ignore"`
}

// FileData is media by URI.
type FileData struct {
	MIMEType    string `json:"mimeType,case:ignore"`
	FileURI     string `json:"fileUri,case:ignore"`
	DisplayName string `json:"displayName,case:ignore"`
}

// VideoMetadata cuts a video part (offsets are proto Durations: "1.5s").
type VideoMetadata struct {
	StartOffset string   `json:"startOffset,case:ignore"`
	EndOffset   string   `json:"endOffset,case:ignore"`
	FPS         *float64 `json:"fps,case:ignore"`
}

// MediaResolution is a part's media resolution.
type MediaResolution struct {
	Level     string `json:"level,case:ignore"`
	NumTokens *int32 `json:"numTokens,case:ignore"`
}

// Tool is one tool: function declarations, or one of the built-in tools
// the mock accepts but does not run.
type Tool struct {
	FunctionDeclarations  []FunctionDeclaration `json:"functionDeclarations,case:ignore"`
	GoogleSearch          Object                `json:"googleSearch,case:ignore"`
	GoogleSearchRetrieval Object                `json:"googleSearchRetrieval,case:ignore"`
	GoogleMaps            Object                `json:"googleMaps,case:ignore"`
	CodeExecution         Object                `json:"codeExecution,case:ignore"`
	ComputerUse           Object                `json:"computerUse,case:ignore"`
	FileSearch            Object                `json:"fileSearch,case:ignore"`
	URLContext            Object                `json:"urlContext,case:ignore"`
	MCPServers            []Object              `json:"mcpServers,case:ignore"`
	Retrieval             Object                `json:"retrieval,case:ignore"`
	EnterpriseWebSearch   Object                `json:"enterpriseWebSearch,case:ignore"`
	ParallelAISearch      Object                `json:"parallelAiSearch,case:ignore"`
	ExaAISearch           Object                `json:"exaAiSearch,case:ignore"`
}

// FunctionDeclaration declares one function. Parameters and Response are
// Google's OpenAPI-subset Schema message, where JSON Schema keywords such
// as additionalProperties are unknown names; the *JsonSchema variants take
// plain JSON Schema and are kept raw.
type FunctionDeclaration struct {
	Name                 string         `json:"name,case:ignore"`
	Description          string         `json:"description,case:ignore"`
	Parameters           *Schema        `json:"parameters,case:ignore"`
	ParametersJSONSchema jsontext.Value `json:"parametersJsonSchema,case:ignore"`
	Response             *Schema        `json:"response,case:ignore"`
	ResponseJSONSchema   jsontext.Value `json:"responseJsonSchema,case:ignore"`
	Behavior             string         `json:"behavior,case:ignore"`
}

// Schema is the OpenAPI 3.0 subset the API defines (google.ai.
// generativelanguage.v1beta.Schema), field for field.
type Schema struct {
	Type             SchemaType         `json:"type,case:ignore"`
	Format           string             `json:"format,case:ignore"`
	Title            string             `json:"title,case:ignore"`
	Description      string             `json:"description,case:ignore"`
	Nullable         *bool              `json:"nullable,case:ignore"`
	Enum             []string           `json:"enum,case:ignore"`
	Items            *Schema            `json:"items,case:ignore"`
	MaxItems         *int64             `json:"maxItems,case:ignore"`
	MinItems         *int64             `json:"minItems,case:ignore"`
	Properties       map[string]*Schema `json:"properties,case:ignore"`
	Required         []string           `json:"required,case:ignore"`
	MinProperties    *int64             `json:"minProperties,case:ignore"`
	MaxProperties    *int64             `json:"maxProperties,case:ignore"`
	MinLength        *int64             `json:"minLength,case:ignore"`
	MaxLength        *int64             `json:"maxLength,case:ignore"`
	Pattern          string             `json:"pattern,case:ignore"`
	Example          jsontext.Value     `json:"example,case:ignore"`
	AnyOf            []*Schema          `json:"anyOf,case:ignore"`
	PropertyOrdering []string           `json:"propertyOrdering,case:ignore"`
	Default          jsontext.Value     `json:"default,case:ignore"`
	Minimum          *float64           `json:"minimum,case:ignore"`
	Maximum          *float64           `json:"maximum,case:ignore"`
}

// SchemaType is the Type enum. Proto JSON takes enum names or their
// numbers (https://protobuf.dev/programming-guides/json/: "Parsers accept
// both enum names and integer values"; Google's generative-ai-go sends
// numbers, $alt=json;enum-encoding=int); the API also takes names in lower
// case (what JSON Schema writers send). An unknown name or number is an
// invalid value.
type SchemaType string

var schemaTypes = []string{"TYPE_UNSPECIFIED", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}

// UnmarshalJSONFrom takes a known enum name in any case.
func (t *SchemaType) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return unmarshalEnum(dec, (*string)(t), schemaTypes, "Type")
}

// FunctionCallingMode is the FunctionCallingConfig.Mode enum.
type FunctionCallingMode string

var functionCallingModes = []string{"MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"}

// UnmarshalJSONFrom takes a known mode name in any case.
func (m *FunctionCallingMode) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return unmarshalEnum(dec, (*string)(m), functionCallingModes, "FunctionCallingConfig.Mode")
}

// protoPackage prefixes the message and enum names in "Invalid value"
// messages.
const protoPackage = "type.googleapis.com/google.ai.generativelanguage.v1beta."

func unmarshalEnum(dec *jsontext.Decoder, out *string, names []string, enum string) error {
	if dec.PeekKind() == '"' {
		var s string
		if err := json.UnmarshalDecode(dec, &s); err != nil {
			return err
		}
		for _, n := range names {
			if strings.EqualFold(s, n) {
				*out = n
				return nil
			}
		}
		return &wirejson.InvalidError{Message: protoPackage + enum}
	}
	if dec.PeekKind() == '0' {
		var n float64
		if err := json.UnmarshalDecode(dec, &n); err != nil {
			return err
		}
		if i := int(n); float64(i) == n && i >= 0 && i < len(names) {
			*out = names[i]
			return nil
		}
		return &wirejson.InvalidError{Message: protoPackage + enum}
	}
	if _, err := dec.ReadValue(); err != nil {
		return err
	}
	return &wirejson.InvalidError{Message: protoPackage + enum}
}

// Object is a JSON object (or null) kept as sent, its members unread.
type Object = wirejson.Object

// ToolConfig constrains tool use.
type ToolConfig struct {
	FunctionCallingConfig            *FunctionCallingConfig `json:"functionCallingConfig,case:ignore"`
	RetrievalConfig                  Object                 `json:"retrievalConfig,case:ignore"`
	IncludeServerSideToolInvocations *bool                  `json:"includeServerSideToolInvocations,case:ignore"`
}

// FunctionCallingConfig is mode AUTO, ANY, NONE or VALIDATED.
type FunctionCallingConfig struct {
	Mode                        FunctionCallingMode `json:"mode,case:ignore"`
	AllowedFunctionNames        []string            `json:"allowedFunctionNames,case:ignore"`
	StreamFunctionCallArguments *bool               `json:"streamFunctionCallArguments,case:ignore"`
}

// SafetySetting is one category's threshold.
type SafetySetting struct {
	Category  OpenEnum `json:"category,case:ignore"`
	Threshold OpenEnum `json:"threshold,case:ignore"`
	Method    OpenEnum `json:"method,case:ignore"`
}

// OpenEnum is an enum the mock does not judge: its name, or its number as
// proto JSON allows (generative-ai-go, under langchaingo, sends
// {"category":10,"threshold":3}), kept as text.
type OpenEnum string

// UnmarshalJSONFrom takes a string or an integer.
func (e *OpenEnum) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		var s string
		if err := json.UnmarshalDecode(dec, &s); err != nil {
			return err
		}
		*e = OpenEnum(s)
		return nil
	case '0':
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if n, perr := strconv.ParseInt(string(v), 10, 32); perr != nil || n < 0 {
			return &wirejson.InvalidError{Message: protoPackage + "HarmCategory"}
		}
		*e = OpenEnum(v)
		return nil
	case 'n':
		_, err := dec.ReadValue()
		return err
	}
	if _, err := dec.ReadValue(); err != nil {
		return err
	}
	return &wirejson.InvalidError{Message: protoPackage + "HarmCategory"}
}

// GenerationConfig is the sampling and output configuration.
type GenerationConfig struct {
	Temperature                *float32        `json:"temperature,case:ignore"`
	TopP                       *float32        `json:"topP,case:ignore"`
	TopK                       *float32        `json:"topK,case:ignore"`
	CandidateCount             *int32          `json:"candidateCount,case:ignore"`
	MaxOutputTokens            *int32          `json:"maxOutputTokens,case:ignore"`
	StopSequences              []string        `json:"stopSequences,case:ignore"`
	ResponseLogprobs           *bool           `json:"responseLogprobs,case:ignore"`
	Logprobs                   *int32          `json:"logprobs,case:ignore"`
	PresencePenalty            *float32        `json:"presencePenalty,case:ignore"`
	FrequencyPenalty           *float32        `json:"frequencyPenalty,case:ignore"`
	Seed                       *int32          `json:"seed,case:ignore"`
	ResponseMIMEType           string          `json:"responseMimeType,case:ignore"`
	ResponseSchema             *Schema         `json:"responseSchema,case:ignore"`
	ResponseJSONSchema         jsontext.Value  `json:"responseJsonSchema,case:ignore"`
	ResponseModalities         []string        `json:"responseModalities,case:ignore"`
	MediaResolution            string          `json:"mediaResolution,case:ignore"`
	ThinkingConfig             *ThinkingConfig `json:"thinkingConfig,case:ignore"`
	EnableEnhancedCivicAnswers *bool           `json:"enableEnhancedCivicAnswers,case:ignore"`
	EnableAffectiveDialog      *bool           `json:"enableAffectiveDialog,case:ignore"`
	AudioTimestamp             *bool           `json:"audioTimestamp,case:ignore"`
	SpeechConfig               Object          `json:"speechConfig,case:ignore"`
	ImageConfig                Object          `json:"imageConfig,case:ignore"`
	RoutingConfig              Object          `json:"routingConfig,case:ignore"`
	ModelSelectionConfig       Object          `json:"modelSelectionConfig,case:ignore"`
	ModelConfig                Object          `json:"modelConfig,case:ignore"`
	AudioTranscriptionConfig   Object          `json:"audioTranscriptionConfig,case:ignore"`
	TranslationConfig          Object          `json:"translationConfig,case:ignore"`
	ResponseFormat             []Object        `json:"responseFormat,case:ignore"`
}

// ThinkingConfig asks for (or limits) thinking.
type ThinkingConfig struct {
	IncludeThoughts *bool  `json:"includeThoughts,case:ignore"`
	ThinkingBudget  *int32 `json:"thinkingBudget,case:ignore"`
	ThinkingLevel   string `json:"thinkingLevel,case:ignore"`
}
