package bedrock

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
)

// ConverseOutput is the answer of /converse, member for member as the API
// sends it (API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
type ConverseOutput struct {
	Output     Output  `json:"output"`
	StopReason string  `json:"stopReason"`
	Usage      Usage   `json:"usage"`
	Metrics    Metrics `json:"metrics"`
}

// Output holds the assistant message.
type Output struct {
	Message OutMessage `json:"message"`
}

// OutMessage is the assistant turn.
type OutMessage struct {
	Role    string     `json:"role"`
	Content []OutBlock `json:"content"`
}

// OutBlock is a text, toolUse or reasoningContent block of the answer.
type OutBlock struct {
	Text             *string       `json:"text,omitempty"`
	ToolUse          *OutToolUse   `json:"toolUse,omitempty"`
	ReasoningContent *OutReasoning `json:"reasoningContent,omitempty"`
}

// OutToolUse is a call the mock makes.
type OutToolUse struct {
	ToolUseID string         `json:"toolUseId"`
	Name      string         `json:"name"`
	Input     map[string]any `json:"input"`
}

// OutReasoning is the model's reasoning with its signature, or, redacted,
// its encrypted bytes (base64).
type OutReasoning struct {
	ReasoningText   *ReasoningText `json:"reasoningText,omitempty"`
	RedactedContent string         `json:"redactedContent,omitempty"`
}

// Usage counts tokens (estimated: a token per four bytes).
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
	TotalTokens  int `json:"totalTokens"`
}

// Metrics is the answer's latency.
type Metrics struct {
	LatencyMs int `json:"latencyMs"`
}

// Stop reasons (StopReason in the API reference).
const (
	stopEndTurn  = "end_turn"
	stopToolUse  = "tool_use"
	stopMaxToken = "max_tokens"
	stopSequence = "stop_sequence"
)

// toolUseIDLength is the random part of an id like tooluse_kZJMlvQmRJ6eAyJE5GIl7Q.
const toolUseIDLength = 22

// Encode answers with one ConverseOutput, or streams it.
func (d *Dialect) Encode(x *dialect.Exchange, req any, c *conv.Conversation, reply *model.Reply) {
	r, _ := req.(*Request)
	if r == nil {
		r = &Request{Model: c.Model, Stream: c.Stream}
	}
	blocks := d.replyBlocks(x, reply)
	if r.thinksNow() && (len(blocks) == 0 || blocks[0].ReasoningContent == nil) {
		sig := base64.StdEncoding.EncodeToString([]byte(x.IDs().Next("", 48)))
		blocks = append([]OutBlock{{ReasoningContent: &OutReasoning{ReasoningText: &ReasoningText{Text: defaultThinking, Signature: sig}}}}, blocks...)
	}
	stop := stopReason(reply, blocks)
	in := tokens(r.BodyLen)
	out := 0
	for _, b := range blocks {
		out += blockBytes(b)
	}
	usage := Usage{InputTokens: in, OutputTokens: tokens(out), TotalTokens: in + tokens(out)}
	if r.Stream {
		d.stream(x, blocks, stop, usage)
		return
	}
	if len(blocks) == 0 {
		empty := ""
		blocks = []OutBlock{{Text: &empty}}
	}
	x.JSON(http.StatusOK, ConverseOutput{Output: Output{Message: OutMessage{Role: roleAssistant, Content: blocks}},
		StopReason: stop, Usage: usage, Metrics: Metrics{LatencyMs: 100}})
}

// replyBlocks turns the neutral reply into the answer's blocks, in the
// reply's order (reasoning, text, calls). A call the token limit cut is
// not sent: its input would not be an object.
func (d *Dialect) replyBlocks(x *dialect.Exchange, reply *model.Reply) []OutBlock {
	var out []OutBlock
	text := ""
	hasText := false
	callIndex := -1
	flushText := func() {
		if hasText {
			t := text
			out = append(out, OutBlock{Text: &t})
			text, hasText = "", false
		}
	}
	for _, p := range reply.Turn.Parts {
		switch p.Kind {
		case conv.KindReasoning:
			flushText()
			sig := p.Reasoning.EncryptedContent
			if sig == "" {
				sig = base64.StdEncoding.EncodeToString([]byte(x.IDs().Next("", 48)))
			}
			if p.Reasoning.Redacted {
				out = append(out, OutBlock{ReasoningContent: &OutReasoning{RedactedContent: sig}})
				continue
			}
			out = append(out, OutBlock{ReasoningContent: &OutReasoning{ReasoningText: &ReasoningText{Text: p.Reasoning.Summary, Signature: sig}}})
		case conv.KindText, conv.KindRefusal:
			text += p.Text
			hasText = true
		case conv.KindCall:
			flushText()
			callIndex++
			if reply.Stop == model.StopTokens && callIndex == reply.CutCall {
				continue
			}
			id := p.Call.ID
			if id == "" {
				id = x.IDs().Next("tooluse_", toolUseIDLength)
			}
			args := p.Call.Arguments
			if args == nil {
				args = map[string]any{}
			}
			out = append(out, OutBlock{ToolUse: &OutToolUse{ToolUseID: id, Name: p.Call.Name, Input: args}})
		}
	}
	flushText()
	return out
}

func stopReason(reply *model.Reply, blocks []OutBlock) string {
	switch reply.Stop {
	case model.StopTokens:
		return stopMaxToken
	case model.StopSequence:
		return stopSequence
	}
	for _, b := range blocks {
		if b.ToolUse != nil {
			return stopToolUse
		}
	}
	return stopEndTurn
}

func blockBytes(b OutBlock) int {
	switch {
	case b.Text != nil:
		return len(*b.Text)
	case b.ToolUse != nil:
		in, _ := json.Marshal(b.ToolUse.Input)
		return len(in)
	case b.ReasoningContent != nil && b.ReasoningContent.ReasoningText != nil:
		return len(b.ReasoningContent.ReasoningText.Text)
	}
	return 0
}

func tokens(n int) int { return (n + 3) / 4 }
