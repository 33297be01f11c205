package jsonscan

// common holds the member names and enum-like values the dialects' request
// bodies repeat on every request. ToString returns the shared copy for
// them instead of allocating a new string each time: the key of every
// member goes through ToString, and those allocations were the largest
// count on the decode path. The set is fixed, so hostile input cannot
// grow it; anything else is allocated as before.
var common = func() map[string]string {
	words := []string{
		// members
		"model", "messages", "tools", "tool_choice", "stream", "max_tokens", "max_completion_tokens",
		"max_output_tokens", "temperature", "top_p", "top_k", "stop", "system", "metadata", "user",
		"role", "content", "type", "text", "name", "description", "id", "input", "input_schema",
		"parameters", "properties", "required", "additionalProperties", "enum", "items", "strict",
		"function", "arguments", "tool_calls", "tool_call_id", "tool_use_id", "is_error", "output",
		"call_id", "instructions", "previous_response_id", "store", "reasoning", "include",
		"parallel_tool_calls", "response_format", "text_format", "format", "schema", "cache_control",
		"thinking", "signature", "budget_tokens", "effort", "summary", "status", "refusal",
		"contents", "parts", "functionCall", "functionResponse", "functionDeclarations", "args",
		"response", "thoughtSignature", "thought", "systemInstruction", "toolConfig",
		"functionCallingConfig", "mode", "allowedFunctionNames", "generationConfig",
		"stream_options", "include_usage", "n", "seed", "logprobs", "service_tier", "anyOf", "oneOf",
		"allOf", "const", "default", "format", "minimum", "maximum", "title", "$ref", "$defs",
		"definitions", "nullable", "minItems", "maxItems", "pattern", "disable_parallel_tool_use",
		// values
		"assistant", "developer", "tool", "object", "string", "number", "integer", "boolean",
		"array", "null", "auto", "none", "any", "required", "tool_use", "tool_result", "image",
		"document", "function_call", "function_call_output", "message", "input_text",
		"output_text", "json_schema", "json_object", "enabled", "disabled", "ephemeral",
		"OBJECT", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "AUTO", "ANY", "NONE",
		"VALIDATED",
	}
	m := make(map[string]string, len(words))
	for _, w := range words {
		m[w] = w
	}
	return m
}()

// maxCommon bounds the lookup: longer strings are never in the set, and
// hashing long text only to miss would cost more than it saves.
const maxCommon = 32
