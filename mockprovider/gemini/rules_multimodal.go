package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/model"
	"github.com/toolwire/toolwire/mockprovider/rules"
)

// Multimodal function responses (Gemini 3): media parts beside the
// structured response, named by displayName and referenced from it with
// {"$ref": NAME}.

// MsgMultimodalNotSupp is the API's answer to multimodal function
// responses on a model before Gemini 3.
const MsgMultimodalNotSupp = "Multimodal function responses are not supported for this model"

// Texts no public source shows, worded in Google's style (their
// references mark them inferred).
const (
	msgInlineDataFormat = "Invalid function response part at 'contents[%d].parts[%d].function_response.parts[%d]': each multimodal function response part must contain inline_data or file_data with a file_uri."
	msgMIMEFormat       = "Unsupported MIME type in function response part at 'contents[%d].parts[%d].function_response.parts[%d]': %s. Supported MIME types are image/png, image/jpeg, image/webp, application/pdf and text/plain."
	msgDisplayDupFormat = "Duplicate display_name '%s' at 'contents[%d].parts[%d].function_response.parts'. Each multimodal part of a function response must have a unique display_name."
	msgRefDangleFormat  = "Invalid reference {\"$ref\": \"%s\"} at 'contents[%d].parts[%d].function_response.response': no multimodal part of the function response has that display_name."
	msgRefTwiceFormat   = "display_name '%s' is referenced more than once at 'contents[%d].parts[%d].function_response.response'. Each display_name can only be referenced once."
)

// multimodalMIMETypes are accepted in function response parts on Gemini 3
// (https://ai.google.dev/gemini-api/docs/function-calling#multimodal).
var multimodalMIMETypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/webp": true, "application/pdf": true, "text/plain": true,
}

const refMultimodal = "https://ai.google.dev/gemini-api/docs/function-calling#multimodal"

func multimodalRules(s *rules.Set[Request]) {
	photoRef := `{"product_id":"PRD-001","image_ref":{"$ref":"product_photo.png"}}`
	s.Add(rules.Rule{ID: "gemini.multimodal-response-model", Level: rules.MUST, Family: "results", Feature: "images",
		Summary: "functionResponse.parts (multimodal function responses) are accepted by Gemini 3 models only.",
		Refs:    []rules.Ref{{URL: refMultimodal, Quote: "displayName and $ref, Gemini 3 models only"}},
		Cases: []rules.Case{{
			Name: "functionResponse.parts on Gemini 2.5", Path: "/v1beta/models/gemini-2.5-flash:generateContent",
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "product_photo.png"))),
			Good:       body(photoFn, userPhoto, callPhoto, `{"role":"user","parts":[{"functionResponse":{"name":"get_product_photo","response":{"product_id":"PRD-001","image":"(not available on this model)"}}}]}`),
			WantStatus: 400, WantMessage: MsgMultimodalNotSupp,
		}},
	}, checkMultimodalModel)

	s.Add(rules.Rule{ID: "gemini.multimodal-response-inline-data", Level: rules.MUST, Family: "results", Feature: "images",
		Summary: "On Gemini 3 each multimodal function response part carries its media: inlineData, or fileData with a fileUri (an uploaded file).",
		Refs: []rules.Ref{
			{URL: "https://docs.cloud.google.com/gemini-enterprise-agent-platform/models/tools/function-calling", Quote: "each multimodal part must contain inlineData or fileData, as quoted in https://github.com/BerriAI/litellm/pull/29324"},
			{URL: "https://ai.google.dev/api/caching#FileData", Quote: "fileUri required"},
			{Quote: "message", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "multimodal part whose fileData has no fileUri (an uploaded file's: accepted)", Path: path3,
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, `{"fileData":{"mimeType":"image/png","displayName":"product_photo.png"}}`)),
			Good:       body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, `{"fileData":{"mimeType":"image/png","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/p4o2x1","displayName":"product_photo.png"}}`)),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgInlineDataFormat, 2, 0, 0),
		}},
	}, checkMultimodalInlineData)

	s.Add(rules.Rule{ID: "gemini.multimodal-response-mime", Level: rules.MUST, Family: "results", Feature: "images",
		Summary: "On Gemini 3 multimodal function response parts are image/png, image/jpeg, image/webp, application/pdf or text/plain.",
		Refs: []rules.Ref{
			{URL: refMultimodal, Quote: "supported MIME types"},
			{Quote: "message", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "GIF in a function response", Path: path3,
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/gif", "product_photo.png"))),
			Good:       body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "product_photo.png"))),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgMIMEFormat, 2, 0, 0, "image/gif"),
		}},
	}, checkMultimodalMIME)

	s.Add(rules.Rule{ID: "gemini.multimodal-response-display-name-unique", Level: rules.MUST, Family: "results", Feature: "images",
		Summary: "On Gemini 3 the displayNames of one function response's parts are unique.",
		Refs: []rules.Ref{
			{URL: refMultimodal, Quote: "displayName and $ref"},
			{Quote: "message", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "two parts with the same displayName", Path: path3,
			Bad: body(photoFn, userPhoto, callPhoto, photoResponse(photoRef,
				inline("image/png", "product_photo.png"), inline("image/png", "product_photo.png"))),
			Good: body(photoFn, userPhoto, callPhoto, photoResponse(photoRef,
				inline("image/png", "product_photo.png"), inline("image/png", "product_back.png"))),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgDisplayDupFormat, "product_photo.png", 2, 0),
		}},
	}, checkDisplayNamesUnique)

	s.Add(rules.Rule{ID: "gemini.multimodal-response-ref-resolves", Level: rules.MUST, Family: "results", Feature: "images",
		Summary: "On Gemini 3 every {\"$ref\": NAME} in functionResponse.response names a part's displayName.",
		Refs: []rules.Ref{
			{URL: refMultimodal, Quote: "displayName and $ref"},
			{URL: "https://github.com/googleapis/python-genai/issues/2792", Quote: `the API checks a $ref against the parts' display_name: "does not match to a display_name"`},
			{Quote: "message", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "$ref naming no part", Path: path3,
			Bad:        body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "photo.png"))),
			Good:       body(photoFn, userPhoto, callPhoto, photoResponse(photoRef, inline("image/png", "product_photo.png"))),
			WantStatus: 400, WantMessage: fmt.Sprintf(msgRefDangleFormat, "product_photo.png", 2, 0),
		}},
	}, checkRefsResolve)

	s.Add(rules.Rule{ID: "gemini.multimodal-response-ref-once", Level: rules.SHOULD, Family: "results", Feature: "images",
		Summary: "On Gemini 3 each displayName should be referenced at most once in functionResponse.response (journaled: no public source shows the API refusing a second reference).",
		Refs: []rules.Ref{
			{URL: refMultimodal, Quote: "displayName and $ref"},
			{Quote: "a refusal not seen", Inferred: true},
		},
		Cases: []rules.Case{{
			Name: "one displayName referenced twice", Path: path3,
			Bad: body(photoFn, userPhoto, callPhoto, photoResponse(
				`{"image_ref":{"$ref":"product_photo.png"},"thumbnail_ref":{"$ref":"product_photo.png"}}`, inline("image/png", "product_photo.png"))),
			Good: body(photoFn, userPhoto, callPhoto, photoResponse(
				`{"image_ref":{"$ref":"product_photo.png"},"thumbnail_ref":{"$ref":"thumbnail.png"}}`,
				inline("image/png", "product_photo.png"), inline("image/png", "thumbnail.png"))),
		}},
	}, checkRefsOnce)
}

// photoResponse is a multimodal function response with the given parts
// and structured response.
func photoResponse(response string, parts ...string) string {
	return `{"role":"user","parts":[{"functionResponse":{"name":"get_product_photo","response":` + response + `,"parts":[` + strings.Join(parts, ",") + `]}}]}`
}

func inline(mime, name string) string {
	return fmt.Sprintf(`{"inlineData":{"mimeType":%q,"data":%q,"displayName":%q}}`, mime, pngBase64, name)
}

// eachMultimodal visits every functionResponse that has parts.
func eachMultimodal(r *Request, visit func(i, j int, fr *FunctionResponse)) {
	shapes := r.contentShapes()
	for i, c := range r.Contents {
		if !shapes[i].multimodal {
			continue
		}
		for j, p := range c.Parts {
			if p.FunctionResponse != nil && len(p.FunctionResponse.Parts) > 0 {
				visit(i, j, p.FunctionResponse)
			}
		}
	}
}

func checkMultimodalModel(r *Request, env *rules.Env) []rules.Violation {
	if model.IsGemini3(modelOf(r, env)) {
		return nil
	}
	var out []rules.Violation
	eachMultimodal(r, func(i, j int, _ *FunctionResponse) {
		out = append(out, turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts", i, j), MsgMultimodalNotSupp))
	})
	return out
}

// gemini3Multimodal runs a multimodal check only where such responses are
// accepted at all (elsewhere multimodal-response-model answers first).
func gemini3Multimodal(r *Request, env *rules.Env, visit func(i, j int, fr *FunctionResponse) []rules.Violation) []rules.Violation {
	if !model.IsGemini3(modelOf(r, env)) {
		return nil
	}
	var out []rules.Violation
	eachMultimodal(r, func(i, j int, fr *FunctionResponse) { out = append(out, visit(i, j, fr)...) })
	return out
}

func checkMultimodalInlineData(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		for k, mp := range fr.Parts {
			if mp.InlineData == nil && (mp.FileData == nil || mp.FileData.FileURI == "") {
				return []rules.Violation{turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts[%d]", i, j, k), fmt.Sprintf(msgInlineDataFormat, i, j, k))}
			}
		}
		return nil
	})
}

func checkMultimodalMIME(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		for k, mp := range fr.Parts {
			if mp.InlineData != nil && !multimodalMIMETypes[strings.ToLower(mp.InlineData.MIMEType)] {
				return []rules.Violation{turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts[%d].inlineData.mimeType", i, j, k),
					fmt.Sprintf(msgMIMEFormat, i, j, k, quoteMIME(mp.InlineData.MIMEType)))}
			}
		}
		return nil
	})
}

func quoteMIME(m string) string {
	if m == "" {
		return "(empty)"
	}
	return m
}

func displayNames(fr *FunctionResponse) []string {
	var names []string
	for _, mp := range fr.Parts {
		switch {
		case mp.InlineData != nil && mp.InlineData.DisplayName != "":
			names = append(names, mp.InlineData.DisplayName)
		case mp.FileData != nil && mp.FileData.DisplayName != "":
			names = append(names, mp.FileData.DisplayName)
		}
	}
	return names
}

func checkDisplayNamesUnique(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		seen := map[string]bool{}
		for _, n := range displayNames(fr) {
			if seen[n] {
				return []rules.Violation{turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.parts", i, j), fmt.Sprintf(msgDisplayDupFormat, n, i, j))}
			}
			seen[n] = true
		}
		return nil
	})
}

// refs lists the {"$ref": NAME} values in a response, in document order.
func refs(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(n any) {
		switch x := n.(type) {
		case map[string]any:
			if s, ok := x["$ref"].(string); ok {
				out = append(out, s)
			}
			for _, k := range sortedKeys(x) {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func checkRefsResolve(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		names := map[string]bool{}
		for _, n := range displayNames(fr) {
			names[n] = true
		}
		for _, ref := range refs(fr.Response) {
			if !names[ref] {
				return []rules.Violation{turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), fmt.Sprintf(msgRefDangleFormat, ref, i, j))}
			}
		}
		return nil
	})
}

func checkRefsOnce(r *Request, env *rules.Env) []rules.Violation {
	return gemini3Multimodal(r, env, func(i, j int, fr *FunctionResponse) []rules.Violation {
		seen := map[string]bool{}
		for _, ref := range refs(fr.Response) {
			if seen[ref] {
				return []rules.Violation{turnBreach(i, fmt.Sprintf("contents[%d].parts[%d].functionResponse.response", i, j), fmt.Sprintf(msgRefTwiceFormat, ref, i, j))}
			}
			seen[ref] = true
		}
		return nil
	})
}
