package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolwire/toolwire/mockprovider/conv"
)

// referenceQuoteResults is QuoteResults as it was written with fmt; the
// buffered version must render the same text.
func referenceQuoteResults(c *conv.Conversation) string {
	t := c.LastTurn()
	if t == nil {
		return ""
	}
	var parts []string
	for _, res := range t.Results() {
		name := res.Name
		if name == "" {
			name = res.CallID
		}
		body := res.Text()
		if body == "" && res.Structured != nil {
			b, _ := json.Marshal(res.Structured)
			body = string(b)
		}
		for _, ct := range res.Content {
			if ct.Type != conv.ContentText {
				body += fmt.Sprintf(" [%s %s]", ct.Type, firstNonEmpty(ct.DisplayName, ct.MIMEType))
			}
		}
		prefix := ""
		if res.IsError {
			prefix = "error "
		}
		parts = append(parts, fmt.Sprintf("%s%s: %q", prefix, name, body))
	}
	return strings.Join(parts, "; ")
}

func FuzzQuoteResultsMatchesReference(f *testing.F) {
	f.Add("get_weather", "call_1", `{"temp":21}`, false, "", "x\"\n\u2028\xff")
	f.Add("", "call_2", "", true, `{"a":[1,"<b>"]}`, "")
	f.Fuzz(func(t *testing.T, name, callID, text string, isErr bool, structured, second string) {
		var st map[string]any
		_ = json.Unmarshal([]byte(structured), &st)
		c := &conv.Conversation{Turns: []conv.Turn{
			{Role: conv.User, Parts: []conv.Part{
				{Kind: conv.KindResult, Result: &conv.Result{Name: name, CallID: callID, IsError: isErr, Structured: st,
					Content: []conv.Content{{Type: conv.ContentText, Text: text}}}},
				{Kind: conv.KindText, Text: "between"},
				{Kind: conv.KindResult, Result: &conv.Result{Name: second, Content: []conv.Content{{Type: conv.ContentImage, MIMEType: "image/png"}}}},
			}},
		}}
		if got, want := QuoteResults(c), referenceQuoteResults(c); got != want {
			t.Fatalf("QuoteResults = %q, want %q", got, want)
		}
		if got, want := finalText(c), "Here is what the tools returned: "+referenceQuoteResults(c); got != want {
			t.Fatalf("finalText = %q, want %q", got, want)
		}
		if got := QuoteResults(&conv.Conversation{}); got != "" {
			t.Fatalf("empty conversation: %q", got)
		}
	})
}
