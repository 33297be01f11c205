package gemini

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// GenerateContentResponse is the answer, field for field and in the order
// the real API sends it (https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent [R]).
type GenerateContentResponse struct {
	Candidates    []Candidate   `json:"candidates"`
	UsageMetadata UsageMetadata `json:"usageMetadata"`
	ModelVersion  string        `json:"modelVersion"`
	ResponseID    string        `json:"responseId"`
}

// Candidate is the one candidate the mock returns.
type Candidate struct {
	Content       OutContent `json:"content"`
	FinishReason  string     `json:"finishReason,omitempty"`
	Index         int        `json:"index"`
	FinishMessage string     `json:"finishMessage,omitempty"`
}

// OutContent is the model turn.
type OutContent struct {
	Parts []OutPart `json:"parts"`
	Role  string    `json:"role"`
}

// OutPart is a text or functionCall part; thoughtSignature is a sibling of
// functionCall on the part, not inside it.
type OutPart struct {
	Text             *string  `json:"text,omitempty"`
	FunctionCall     *OutCall `json:"functionCall,omitempty"`
	ThoughtSignature string   `json:"thoughtSignature,omitempty"`
}

// OutCall is a function call the mock makes.
type OutCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// UsageMetadata counts tokens (estimated: a token per four bytes).
type UsageMetadata struct {
	PromptTokenCount     int             `json:"promptTokenCount"`
	CandidatesTokenCount int             `json:"candidatesTokenCount"`
	TotalTokenCount      int             `json:"totalTokenCount"`
	PromptTokensDetails  []ModalityCount `json:"promptTokensDetails"`
	ThoughtsTokenCount   int             `json:"thoughtsTokenCount,omitempty"`
}

// ModalityCount is a per-modality token count.
type ModalityCount struct {
	Modality   string `json:"modality"`
	TokenCount int    `json:"tokenCount"`
}

const (
	roleModel            = "model"
	roleUser             = "user"
	finishStop           = "STOP"
	finishMaxTokens      = "MAX_TOKENS"
	finishMessageCalls   = "Model generated function call(s)."
	noSignature          = "-"
	responseIDLength     = 23
	signaturePayloadSize = 36
)

// Encode answers with one GenerateContentResponse, or streams it.
func (d *Dialect) Encode(x *dialect.Exchange, req any, c *conv.Conversation, reply *model.Reply) {
	r, _ := req.(*Request)
	if r == nil {
		r = &Request{Model: c.Model}
	}
	if r.Method == methodCount {
		encodeCount(x, r)
		return
	}
	texts, calls := d.replyParts(x, r.Model, reply)
	if len(calls) == 0 {
		texts = structuredText(r, c.Controls.Output, texts)
	}
	prompt := promptTokens(r)
	head := responseHead{model: r.Model, id: x.IDs().Next("", responseIDLength), prompt: prompt, thoughts: thoughtsTokens(r, prompt), calls: len(calls) > 0, finish: finishStop,
		candidates: max(c.Controls.Candidates, 1)}
	// A stop sequence ends the turn with STOP; the token limit with
	// MAX_TOKENS.
	if reply.Stop == model.StopTokens {
		head.finish = finishMaxTokens
	}
	// Arguments that cannot be encoded (a NaN, say) make a 500, or a
	// stream that ends.
	callsLen := callBytes(calls)
	if !c.Stream {
		x.JSON(http.StatusOK, head.message(wholeAnswer(texts, calls, callsLen)))
		return
	}
	d.stream(x, r, head, streamChunks(texts, calls, callsLen, x.Stream.FragmentSize))
}

// chunk is one GenerateContentResponse to send: its parts (a text part
// when hasText, then calls), whether it ends the turn, and the output
// bytes counted so far (for usage).
type chunk struct {
	text     string
	hasText  bool
	calls    []OutPart
	last     bool
	outBytes int
}

// parts is the chunk's parts as one list.
func (ch chunk) parts() []OutPart {
	var parts []OutPart
	if ch.hasText {
		parts = append(parts, textPart(ch.text))
	}
	return append(parts, ch.calls...)
}

// wholeAnswer is the one chunk of an answer that is not streamed: the
// text (or an empty text when there is nothing else) and the calls.
func wholeAnswer(texts string, calls []OutPart, callsLen int) chunk {
	return chunk{text: texts, hasText: texts != "" || len(calls) == 0, calls: calls, last: true, outBytes: len(texts) + callsLen}
}

// streamChunks lays out a streamed answer: the text in fragments, then the
// calls whole in one chunk that ends the turn (the Gemini API never splits
// call arguments). callsLen is the encoded size of the calls.
func streamChunks(texts string, calls []OutPart, callsLen int, fragmentSize int) []chunk {
	frags := wire.Fragments(texts, fragmentSize)
	chunks := make([]chunk, 0, len(frags)+1)
	sent := 0
	for i, f := range frags {
		sent += len(f)
		chunks = append(chunks, chunk{text: f, hasText: true, last: i == len(frags)-1 && len(calls) == 0, outBytes: sent})
	}
	if len(calls) > 0 {
		chunks = append(chunks, chunk{calls: calls, last: true, outBytes: sent + callsLen})
	} else if len(frags) == 0 {
		chunks = append(chunks, chunk{hasText: true, last: true})
	}
	return chunks
}

// responseHead is what every chunk of one answer shares.
type responseHead struct {
	model, id string
	prompt    int
	thoughts  int  // thinking tokens, reported by thinking models
	calls     bool // the turn made calls: the last chunk says so
	finish    string
	// candidates is how many candidates each chunk carries (candidateCount):
	// the model gives one reply, repeated under each index.
	candidates int
}

// message is the chunk as a GenerateContentResponse.
func (h responseHead) message(ch chunk) GenerateContentResponse {
	cand := Candidate{Content: OutContent{Parts: ch.parts(), Role: roleModel}}
	if ch.last {
		cand.FinishReason = h.finish
		if h.calls && h.finish == finishStop {
			cand.FinishMessage = finishMessageCalls
		}
	}
	n := max(h.candidates, 1)
	cands := make([]Candidate, n)
	for i := range cands {
		cands[i] = cand
		cands[i].Index = i
	}
	// candidatesTokenCount counts every candidate ("Total number of tokens
	// across all the generated response candidates", UsageMetadata).
	out := tokens(ch.outBytes) * n
	return GenerateContentResponse{
		Candidates: cands,
		UsageMetadata: UsageMetadata{PromptTokenCount: h.prompt, CandidatesTokenCount: out, ThoughtsTokenCount: h.thoughts, TotalTokenCount: h.prompt + out + h.thoughts,
			PromptTokensDetails: []ModalityCount{{Modality: "TEXT", TokenCount: h.prompt}}},
		ModelVersion: h.model,
		ResponseID:   h.id,
	}
}

// replyParts turns the neutral reply into the joined text and the call
// parts (the first call carries the thought signature). A call the token
// limit cut is not sent: Gemini sends a call's args whole or not at all
// [inferred].
func (d *Dialect) replyParts(x *dialect.Exchange, modelName string, reply *model.Reply) (string, []OutPart) {
	text := ""
	var calls []OutPart
	callIndex := -1
	for _, p := range reply.Turn.Parts {
		switch p.Kind {
		case conv.KindText, conv.KindRefusal:
			text += p.Text
		case conv.KindCall:
			callIndex++
			if reply.Stop == model.StopTokens && callIndex == reply.CutCall {
				continue
			}
			call := &OutCall{ID: p.Call.ID, Name: p.Call.Name, Args: p.Call.Arguments}
			if call.Args == nil {
				call.Args = map[string]any{}
			}
			// Gemini 3 gives every call an id (the 2.5 models give none).
			if call.ID == "" && (d.EmitCallIDs || model.IsGemini3(modelName)) {
				call.ID = x.IDs().Next("", 8)
			}
			part := OutPart{FunctionCall: call}
			if len(calls) == 0 {
				// The API signs the first call of a step, on Gemini 3 and
				// (observed) on 2.5; a scripted signature wins, "-" omits it.
				switch sig := p.Call.ThoughtSignature; sig {
				case "":
					part.ThoughtSignature = mintSignature(x.IDs(), call.Name)
				case noSignature:
				default:
					part.ThoughtSignature = sig
				}
			}
			calls = append(calls, part)
		}
	}
	return text, calls
}

func textPart(s string) OutPart { return OutPart{Text: &s} }

func callBytes(calls []OutPart) int {
	n := 0
	for _, c := range calls {
		b, _ := json.Marshal(c.FunctionCall)
		n += len(b)
	}
	return n
}

// promptTokens estimates the prompt: a token per four bytes of the body.
func promptTokens(r *Request) int { return tokens(r.BodyLen) }

func tokens(n int) int { return (n + 3) / 4 }

// thoughtsTokens is what a thinking model reports spending on thought:
// Gemini 3 and 2.5 Pro/Flash think by default (2.5 Flash-Lite only when
// given a budget), a budget of 0 turns it off on 2.5, and a positive
// budget caps it. The amount itself is a deterministic function of the
// prompt.
func thoughtsTokens(r *Request, prompt int) int {
	name := strings.ToLower(strings.TrimPrefix(r.Model, "models/"))
	budget := int32(-1) // dynamic
	if g := r.GenerationConfig; g != nil && g.ThinkingConfig != nil && g.ThinkingConfig.ThinkingBudget != nil {
		budget = *g.ThinkingConfig.ThinkingBudget
	}
	thinking := model.IsGemini3(name) ||
		strings.HasPrefix(name, "gemini-2.5") && (!strings.Contains(name, "lite") || budget > 0)
	if !thinking || budget == 0 && !model.IsGemini3(name) {
		return 0
	}
	n := 32 + prompt/8
	if budget > 0 {
		n = min(n, int(budget))
	}
	return n
}
