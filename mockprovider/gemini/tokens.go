package gemini

import (
	"net/http"
	"reflect"

	"github.com/toolwire/toolwire/mockprovider/dialect"
	"github.com/toolwire/toolwire/mockprovider/wire"
)

// methodCount is models.countTokens: the request of generateContent (bare
// contents, or a whole generateContentRequest), validated the same way,
// answered with the prompt count generateContent would report for it.
const methodCount = "countTokens"

// CountTokensRequest is the countTokens body: the Gemini API's contents or
// generateContentRequest, and the fields Vertex AI takes beside contents
// (what go-genai's countTokensParametersToVertex writes).
type CountTokensRequest struct {
	Contents               []Content         `json:"contents,case:ignore"`
	GenerateContentRequest Object            `json:"generateContentRequest,case:ignore"`
	Model                  string            `json:"model,case:ignore"`
	Instances              []Object          `json:"instances,case:ignore"`
	SystemInstruction      *Content          `json:"systemInstruction,case:ignore"`
	Tools                  []Tool            `json:"tools,case:ignore"`
	GenerationConfig       *GenerationConfig `json:"generationConfig,case:ignore"`
}

// CountTokensResponse is the answer.
type CountTokensResponse struct {
	TotalTokens         int             `json:"totalTokens"`
	PromptTokensDetails []ModalityCount `json:"promptTokensDetails"`
}

// decodeCountTokens reads a countTokens body into the Request the rules
// check. With generateContentRequest, that inner message is decoded (and
// its errors located) as generateContent would, so its count is the
// promptTokenCount a generateContent of it reports.
func decodeCountTokens(body []byte, lenient bool) (*Request, *wire.APIError) {
	d := decoder{body: body, root: reflect.TypeFor[CountTokensRequest]()}
	var ct CountTokensRequest
	unknown, aerr := d.decode(&ct, lenient)
	if aerr != nil {
		return nil, aerr
	}
	if len(ct.GenerateContentRequest) > 0 && string(ct.GenerateContentRequest) != "null" {
		inner := decoder{body: ct.GenerateContentRequest, root: reflect.TypeFor[Request](), prefix: "generate_content_request"}
		req, aerr := decodeRequest(inner, lenient)
		if aerr != nil {
			return nil, aerr
		}
		req.Unknown = append(unknown, req.Unknown...)
		return req, nil
	}
	req := &Request{Contents: ct.Contents, SystemInstruction: ct.SystemInstruction, Tools: ct.Tools,
		GenerationConfig: ct.GenerationConfig, Unknown: unknown, BodyLen: len(body)}
	req.derive()
	return req, nil
}

// encodeCount answers countTokens.
func encodeCount(x *dialect.Exchange, r *Request) {
	n := promptTokens(r)
	x.JSON(http.StatusOK, CountTokensResponse{TotalTokens: n, PromptTokensDetails: []ModalityCount{{Modality: "TEXT", TokenCount: n}}})
}
