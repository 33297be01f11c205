package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// The bodies are one tool-call turn each: with history and tools in, a
// call (even i) or a final text (odd i, the history ends in a result) out.
const (
	weatherSchema = `{"type":"object","properties":{"city":{"type":"string","description":"City name"},"units":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","units"],"additionalProperties":false}`

	chatCall   = `{"model":"gpt-4.1","stream":%s,"tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":` + weatherSchema + `}}],"messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is the weather in Paris?"}]}`
	chatResult = `{"model":"gpt-4.1","stream":%s,"tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":` + weatherSchema + `}}],"messages":[{"role":"system","content":"You are helpful."},{"role":"user","content":"What is the weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"units\":\"celsius\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"{\"temperature\":18,\"condition\":\"partly cloudy\"}"}]}`

	respCall   = `{"model":"gpt-4.1","stream":%s,"tools":[{"type":"function","name":"get_weather","description":"Get the weather","parameters":` + weatherSchema + `}],"input":[{"role":"user","content":"What is the weather in Paris?"}]}`
	respResult = `{"model":"gpt-4.1","stream":%s,"tools":[{"type":"function","name":"get_weather","description":"Get the weather","parameters":` + weatherSchema + `}],"input":[{"role":"user","content":"What is the weather in Paris?"},{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\",\"units\":\"celsius\"}"},{"type":"function_call_output","call_id":"call_1","output":"{\"temperature\":18,\"condition\":\"partly cloudy\"}"}]}`

	antCall   = `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":%s,"tools":[{"name":"get_weather","description":"Get the weather","input_schema":` + weatherSchema + `}],"messages":[{"role":"user","content":"What is the weather in Paris?"}]}`
	antResult = `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":%s,"tools":[{"name":"get_weather","description":"Get the weather","input_schema":` + weatherSchema + `}],"messages":[{"role":"user","content":"What is the weather in Paris?"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris","units":"celsius"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"{\"temperature\":18,\"condition\":\"partly cloudy\"}"}]}]}`

	gemCall   = `{"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the weather","parametersJsonSchema":` + weatherSchema + `}]}],"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}]}`
	gemResult = `{"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the weather","parametersJsonSchema":` + weatherSchema + `}]}],"contents":[{"role":"user","parts":[{"text":"What is the weather in Paris?"}]},{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Paris","units":"celsius"}},"thoughtSignature":"c2lnbmF0dXJl"}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"temperature":18,"condition":"partly cloudy"}}}]}]}`
)

// Bedrock bodies carry no stream flag: the path says it.
const (
	brCall   = `{"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"Get the weather","inputSchema":{"json":` + weatherSchema + `}}}]},"messages":[{"role":"user","content":[{"text":"What is the weather in Paris?"}]}]}`
	brResult = `{"toolConfig":{"tools":[{"toolSpec":{"name":"get_weather","description":"Get the weather","inputSchema":{"json":` + weatherSchema + `}}}]},"messages":[{"role":"user","content":[{"text":"What is the weather in Paris?"}]},{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_0001","name":"get_weather","input":{"city":"Paris","units":"celsius"}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"tooluse_0001","content":[{"json":{"temperature":18,"condition":"partly cloudy"}}]}}]}]}`
)

// turnBodies are each dialect's call and result bodies.
var turnBodies = map[conv.Dialect]struct{ call, result string }{
	conv.OpenAIChat:      {chatCall, chatResult},
	conv.OpenAIResponses: {respCall, respResult},
	conv.Anthropic:       {antCall, antResult},
	conv.Gemini:          {gemCall, gemResult},
	conv.Bedrock:         {brCall, brResult},
}

// clients address each dialect (endpoint, auth) as its SDK does; resolved
// once, not per request.
var clients = func() map[conv.Dialect]dialect.Client {
	out := map[conv.Dialect]dialect.Client{}
	for _, d := range conv.Dialects {
		if dl, ok := mockprovider.BuiltinDialect(d); ok {
			out[d] = dl
		}
	}
	return out
}()

func turnRequest(base string, d conv.Dialect, stream bool, key string, i int) *http.Request {
	flag := "false"
	if stream {
		flag = "true"
	}
	bodies, c := turnBodies[d], clients[d]
	body := pick(i%2 == 1, bodies.result, bodies.call)
	body = strings.Replace(body, "%s", flag, 1)
	if varyText {
		body = strings.Replace(body, userText, userText+" (request "+strconv.FormatInt(varied.Add(1), 10)+")", 1)
	}
	// The bodies name no Gemini model: the dialect's default is addressed.
	req, _ := http.NewRequest(http.MethodPost, base+c.Endpoint("", stream), strings.NewReader(body))
	h := http.Header{}
	c.SetAuth(h, key)
	h.Set("Content-Type", "application/json")
	req.Header = h
	return req
}

// varyText (--vary) makes each request's user text its own, as an agent's
// first turns are: no two bodies are the same, so a server cannot answer
// from what it decoded of an identical body before (the tools still
// repeat, as they do in real traffic).
var (
	varyText bool
	varied   atomic.Int64
)

const userText = "What is the weather in Paris?"

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}
