package gemini

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// GenerateContentResponse is the answer, field for field and in the order
// the real API sends it (provider-rules.md §4.4 [R]).
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
	texts, calls := d.replyParts(x, reply)
	base := GenerateContentResponse{ModelVersion: r.Model, ResponseID: x.IDs().Next("", responseIDLength)}
	prompt := promptTokens(r)
	usage := func(outBytes int) UsageMetadata {
		out := tokens(outBytes)
		return UsageMetadata{PromptTokenCount: prompt, CandidatesTokenCount: out, TotalTokenCount: prompt + out,
			PromptTokensDetails: []ModalityCount{{Modality: "TEXT", TokenCount: prompt}}}
	}
	chunk := func(parts []OutPart, last bool, outBytes int) GenerateContentResponse {
		g := base
		cand := Candidate{Content: OutContent{Parts: parts, Role: roleModel}}
		if last {
			cand.FinishReason = finishStop
			if len(calls) > 0 {
				cand.FinishMessage = finishMessageCalls
			}
		}
		g.Candidates = []Candidate{cand}
		g.UsageMetadata = usage(outBytes)
		return g
	}

	if !c.Stream {
		var parts []OutPart
		if texts != "" || len(calls) == 0 {
			parts = append(parts, textPart(texts))
		}
		parts = append(parts, calls...)
		x.JSON(http.StatusOK, chunk(parts, true, len(texts)+callBytes(calls)))
		return
	}

	// Streamed: text in fragments, then the calls whole in one chunk that
	// ends the turn (the Gemini API never splits call arguments).
	var chunks []GenerateContentResponse
	sent := 0
	frags := wire.Fragments(texts, x.Stream.FragmentSize)
	for i, f := range frags {
		sent += len(f)
		chunks = append(chunks, chunk([]OutPart{textPart(f)}, i == len(frags)-1 && len(calls) == 0, sent))
	}
	if len(calls) > 0 {
		chunks = append(chunks, chunk(calls, true, sent+callBytes(calls)))
	} else if len(frags) == 0 {
		chunks = append(chunks, chunk([]OutPart{textPart("")}, true, 0))
	}
	if !r.SSE {
		// Without alt=sse the API streams one JSON array of the chunks.
		x.JSON(http.StatusOK, chunks)
		return
	}
	s := x.SSE("\r\n\r\n")
	for _, ch := range chunks {
		if err := s.Event("", ch); err != nil {
			return
		}
	}
}

// replyParts turns the neutral reply into the joined text and the call
// parts (the first call carries the thought signature).
func (d *Dialect) replyParts(x *dialect.Exchange, reply *model.Reply) (string, []OutPart) {
	text := ""
	var calls []OutPart
	for _, p := range reply.Turn.Parts {
		switch p.Kind {
		case conv.KindText, conv.KindRefusal:
			text += p.Text
		case conv.KindCall:
			call := &OutCall{ID: p.Call.ID, Name: p.Call.Name, Args: p.Call.Arguments}
			if call.Args == nil {
				call.Args = map[string]any{}
			}
			if call.ID == "" && d.EmitCallIDs {
				call.ID = x.IDs().Next("", 8)
			}
			part := OutPart{FunctionCall: call}
			if len(calls) == 0 {
				// The API signs the first call of a step, on Gemini 3 and
				// (observed) on 2.5; a scripted signature wins, "-" omits it.
				switch sig := p.Call.ThoughtSignature; sig {
				case "":
					part.ThoughtSignature = mintSignature(x.IDs())
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

// mintSignature makes an opaque, valid-base64 signature (go-genai decodes
// thoughtSignature as bytes) shaped like the real ones ("CiQB…").
func mintSignature(ids *wire.IDs) string {
	payload := ids.Next("", signaturePayloadSize)
	b := append([]byte{0x0a, byte(len(payload))}, payload...)
	return base64.StdEncoding.EncodeToString(b)
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

func promptTokens(r *Request) int {
	// Only the length of the encoding counts: it is streamed into a
	// counter rather than built as a slice. Encode writes what Marshal
	// returns plus a newline, and writes nothing when Marshal would fail
	// (whose empty result counted 0).
	var n byteCounter
	if json.NewEncoder(&n).Encode(struct {
		C []Content `json:"c"`
		S *Content  `json:"s"`
		T []Tool    `json:"t"`
	}{r.Contents, r.SystemInstruction, r.Tools}) != nil {
		return tokens(0)
	}
	return tokens(int(n) - 1)
}

// byteCounter is an io.Writer that only counts.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}

func tokens(n int) int { return (n + 3) / 4 }
