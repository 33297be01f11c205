package openaichat

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The wire structs below are every member the official SDKs can send in a
// Chat Completions request (openai-go ChatCompletionNewParams and what it
// references, plus "stream", which the SDK sets itself). Decoding into
// them is the validation: an unknown member, a wrong type or an enum value
// the API does not know fails with the path to it (decode.go renders that
// in the API's words). drift_test.go fails when the SDK gains a field these
// structs do not know.
//
// Pointers mark members whose absence the rules must see (a missing role
// is the required-fields rule's, not a decode error); null counts as
// absent, as it did for the API's own validator in every capture. Where
// the zero value says the same as absence (an empty model, stream false)
// or a nil slice does (messages), the member is a value: a pointer is an
// allocation per request.

type chatRequest struct {
	Model                string              `json:"model"`
	Messages             []chatMessage       `json:"messages"`
	Stream               bool                `json:"stream"`
	StreamOptions        *streamOptions      `json:"stream_options"`
	Tools                *[]chatTool         `json:"tools"`
	ToolChoice           toolChoice          `json:"tool_choice"`
	ParallelToolCalls    *bool               `json:"parallel_tool_calls"`
	FrequencyPenalty     *float64            `json:"frequency_penalty"`
	Logprobs             *bool               `json:"logprobs"`
	MaxCompletionTokens  *int64              `json:"max_completion_tokens"`
	MaxTokens            *int64              `json:"max_tokens"`
	N                    *int64              `json:"n"`
	PresencePenalty      *float64            `json:"presence_penalty"`
	PromptCacheKey       *string             `json:"prompt_cache_key"`
	SafetyIdentifier     *string             `json:"safety_identifier"`
	Seed                 *int64              `json:"seed"`
	Store                *bool               `json:"store"`
	Temperature          *float64            `json:"temperature"`
	TopLogprobs          *int64              `json:"top_logprobs"`
	TopP                 *float64            `json:"top_p"`
	User                 *string             `json:"user"`
	Audio                *audioOutput        `json:"audio"`
	LogitBias            map[string]int64    `json:"logit_bias"`
	Metadata             map[string]string   `json:"metadata"`
	Modalities           []string            `json:"modalities"`
	Moderation           *moderation         `json:"moderation"`
	PromptCacheRetention *string             `json:"prompt_cache_retention"`
	ReasoningEffort      *string             `json:"reasoning_effort"`
	ServiceTier          *string             `json:"service_tier"`
	Stop                 stringOrList        `json:"stop"`
	Verbosity            *string             `json:"verbosity"`
	FunctionCall         functionCallChoice  `json:"function_call"`
	Functions            []legacyFunction    `json:"functions"`
	Prediction           *prediction         `json:"prediction"`
	PromptCacheOptions   *promptCacheOptions `json:"prompt_cache_options"`
	ResponseFormat       *responseFormat     `json:"response_format"`
	WebSearchOptions     *webSearchOptions   `json:"web_search_options"`
}

// chatMessage holds the members of every role; memberNotAllowed (decode.go)
// rejects those the message's role does not define, as the API's schema
// for that role does.
type chatMessage struct {
	Role         *enum[roleSet]  `json:"role"`
	Content      content         `json:"content"`
	Name         *string         `json:"name"`
	Refusal      *string         `json:"refusal"`
	ToolCallID   *string         `json:"tool_call_id"`
	ToolCalls    *[]wireToolCall `json:"tool_calls"`
	FunctionCall *legacyCall     `json:"function_call"`
	Audio        *audioReference `json:"audio"`
	// Annotations are not in the SDK's param type, but an assistant
	// message replayed as it was received carries them ("annotations":
	// []), a habit of many clients that no capture shows refused [I].
	Annotations jsontext.Value `json:"annotations"`
}

// contentPart holds the members of every part type (text, image_url,
// input_audio, file, refusal).
type contentPart struct {
	Type                  *enum[partTypeSet] `json:"type"`
	Text                  *string            `json:"text"`
	Refusal               *string            `json:"refusal"`
	ImageURL              *imageURL          `json:"image_url"`
	InputAudio            *inputAudio        `json:"input_audio"`
	File                  *fileRef           `json:"file"`
	PromptCacheBreakpoint *cacheBreakpoint   `json:"prompt_cache_breakpoint"`
}

type imageURL struct {
	URL    *string `json:"url"`
	Detail *string `json:"detail"`
}

type inputAudio struct {
	Data   *string `json:"data"`
	Format *string `json:"format"`
}

type fileRef struct {
	FileData *string `json:"file_data"`
	FileID   *string `json:"file_id"`
	Filename *string `json:"filename"`
}

type cacheBreakpoint struct {
	TTL  *string `json:"ttl"`
	Mode *string `json:"mode"`
}

// wireToolCall is a replayed function or custom tool call.
type wireToolCall struct {
	ID       *string            `json:"id"`
	Type     *enum[callTypeSet] `json:"type"`
	Function *callFunction      `json:"function"`
	Custom   *customCall        `json:"custom"`
}

type callFunction struct {
	Name *string `json:"name"`
	// Arguments stays raw: an object here is the arguments-string rule's
	// to report, in its own words.
	Arguments jsontext.Value `json:"arguments"`
}

type customCall struct {
	Name  string `json:"name"`
	Input string `json:"input"`
}

type legacyCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type audioReference struct {
	ID string `json:"id"`
}

// chatTool is a function or custom tool declaration.
type chatTool struct {
	Type     *enum[callTypeSet] `json:"type"`
	Function *functionDef       `json:"function"`
	Custom   *customTool        `json:"custom"`
}

type functionDef struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
	// Parameters stays raw: the schema rules judge it.
	Parameters jsontext.Value `json:"parameters"`
	Strict     *bool          `json:"strict"`
}

type customTool struct {
	Name        string        `json:"name"`
	Description *string       `json:"description"`
	Format      *customFormat `json:"format"`
}

type customFormat struct {
	Type    string   `json:"type"`
	Grammar *grammar `json:"grammar"`
}

type grammar struct {
	Definition string `json:"definition"`
	Syntax     string `json:"syntax"`
}

type streamOptions struct {
	IncludeUsage       *bool `json:"include_usage"`
	IncludeObfuscation *bool `json:"include_obfuscation"`
}

type audioOutput struct {
	Format string      `json:"format"`
	Voice  voiceChoice `json:"voice"`
}

type moderation struct {
	Model  string            `json:"model"`
	Policy *moderationPolicy `json:"policy"`
}

type moderationPolicy struct {
	Input  *moderationMode `json:"input"`
	Output *moderationMode `json:"output"`
}

type moderationMode struct {
	Mode string `json:"mode"`
}

type legacyFunction struct {
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Parameters  jsontext.Value `json:"parameters"`
}

type prediction struct {
	Type    string  `json:"type"`
	Content content `json:"content"`
}

type promptCacheOptions struct {
	Mode string `json:"mode"`
	TTL  string `json:"ttl"`
}

type responseFormat struct {
	Type       *enum[responseFormatTypeSet] `json:"type"`
	JSONSchema *jsonSchemaFormat            `json:"json_schema"`
}

type jsonSchemaFormat struct {
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Schema      jsontext.Value `json:"schema"`
	Strict      *bool          `json:"strict"`
}

type webSearchOptions struct {
	UserLocation      *userLocation `json:"user_location"`
	SearchContextSize *string       `json:"search_context_size"`
}

type userLocation struct {
	Type        string               `json:"type"`
	Approximate *approximateLocation `json:"approximate"`
}

type approximateLocation struct {
	City     *string `json:"city"`
	Country  *string `json:"country"`
	Region   *string `json:"region"`
	Timezone *string `json:"timezone"`
}

// Unions. Each reads the JSON kind first and decodes the matching form;
// any other kind is an invalid_type error in the API's words, e.g.
// "expected one of a string or array of objects".

// content is a message's (or prediction's) string or parts.
type content struct {
	Sent  bool // present and not null
	Text  string
	Parts []contentPart
	Array bool
}

func (c *content) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadValue()
		return err
	case '"':
		c.Sent = true
		return json.UnmarshalDecode(dec, &c.Text)
	case '[':
		c.Sent, c.Array = true, true
		return json.UnmarshalDecode(dec, &c.Parts)
	}
	return wrongKind(dec, "one of a string or array of objects")
}

// stringOrList is stop: a string or a list of strings.
type stringOrList struct {
	One  *string
	Many []string
}

func (s *stringOrList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadValue()
		return err
	case '"':
		return json.UnmarshalDecode(dec, &s.One)
	case '[':
		return json.UnmarshalDecode(dec, &s.Many)
	}
	return wrongKind(dec, "one of a string or array of strings")
}

// voiceChoice is audio.voice: a voice name or {"id": …}.
type voiceChoice struct {
	Name *string
	ID   *audioReference
}

func (v *voiceChoice) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadValue()
		return err
	case '"':
		return json.UnmarshalDecode(dec, &v.Name)
	case '{':
		return json.UnmarshalDecode(dec, &v.ID)
	}
	return wrongKind(dec, "one of a string or object")
}

// functionCallChoice is the legacy function_call: a mode or {"name": …}.
type functionCallChoice struct {
	Mode *string
	Name *legacyName
}

type legacyName struct {
	Name string `json:"name"`
}

func (f *functionCallChoice) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadValue()
		return err
	case '"':
		return json.UnmarshalDecode(dec, &f.Mode)
	case '{':
		return json.UnmarshalDecode(dec, &f.Name)
	}
	return wrongKind(dec, "one of a string or object")
}

// toolChoice is a mode ("none", "auto", "required") or an object naming a
// function, a custom tool, or an allowed_tools subset.
type toolChoice struct {
	Sent   bool
	Mode   string // the string form
	Object *toolChoiceObject
}

type toolChoiceObject struct {
	Type         *string       `json:"type"`
	Function     *namedTool    `json:"function"`
	Custom       *namedTool    `json:"custom"`
	AllowedTools *allowedTools `json:"allowed_tools"`
}

type namedTool struct {
	Name *string `json:"name"`
}

type allowedTools struct {
	Mode  string           `json:"mode"`
	Tools []map[string]any `json:"tools"`
}

var toolChoiceModes = []string{"none", "auto", "required"}

var toolChoiceTypes = []string{"function", "allowed_tools", "custom"}

func (t *toolChoice) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case 'n':
		_, err := dec.ReadValue()
		return err
	case '"':
		if err := json.UnmarshalDecode(dec, &t.Mode); err != nil {
			return err
		}
		t.Sent = true
		if !oneOf(t.Mode, toolChoiceModes) {
			return invalidValueError("", t.Mode, toolChoiceModes)
		}
		return nil
	case '{':
		if err := json.UnmarshalDecode(dec, &t.Object); err != nil {
			return err
		}
		t.Sent = true
		o := t.Object
		switch {
		case o.Type == nil:
			return missingError(".type")
		case *o.Type == "function" && (o.Function == nil || o.Function.Name == nil || *o.Function.Name == ""):
			return missingError(".function.name")
		case *o.Type == "custom" && (o.Custom == nil || o.Custom.Name == nil || *o.Custom.Name == ""):
			return missingError(".custom.name")
		case !oneOf(*o.Type, toolChoiceTypes):
			return invalidValueError(".type", *o.Type, toolChoiceTypes)
		}
		return nil
	}
	return wrongKind(dec, "one of a string or object")
}

// enum is a string member with a fixed set of values; another value is the
// API's invalid_value answer listing them.
type enum[S valueSet] string

type valueSet interface{ values() []string }

func (e *enum[S]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var s string
	if err := json.UnmarshalDecode(dec, &s); err != nil {
		return err
	}
	var set S
	allowed := set.values()
	for _, v := range allowed {
		if v == s {
			*e = enum[S](v) // the shared copy: no allocation per request
			return nil
		}
	}
	*e = enum[S](s)
	return invalidValueError("", s, allowed)
}

func (e *enum[S]) String() string {
	if e == nil {
		return ""
	}
	return string(*e)
}

// roleSet lists messages[].role in the order the API's message does.
type roleSet struct{}

func (roleSet) values() []string { return roles }

type partTypeSet struct{}

func (partTypeSet) values() []string { return partTypes }

type callTypeSet struct{}

func (callTypeSet) values() []string { return callTypes }

type responseFormatTypeSet struct{}

func (responseFormatTypeSet) values() []string { return responseFormatTypes }

// roles are the values OpenAI accepts for messages[N].role, in the order
// its invalid-value message lists them.
var roles = []string{"system", "assistant", "user", "function", "tool", "developer"}

// partTypes are the content part types the Chat API accepts.
var partTypes = []string{"text", "image_url", "input_audio", "refusal", "audio", "file"}

// callTypes are the values tools[].type and tool_calls[].type accept.
var callTypes = []string{"function", "custom"}

// responseFormatTypes are the values response_format.type accepts, in the
// order the API's invalid-value message lists them ("Invalid value:
// 'object'. Supported values are: 'json_object', 'json_schema', and
// 'text'.", param response_format.type: epuerta9/deep-research-py#19).
var responseFormatTypes = []string{"json_object", "json_schema", "text"}
