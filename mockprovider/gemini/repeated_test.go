package gemini

import (
	"strings"
	"testing"
)

// repeatedBodies are the same request with its repeated fields as lists
// and as single values (n contents).
func repeatedBodies(n int) (lists, singles []byte) {
	content := `{"role":"user","parts":[{"text":"What is the weather in Paris?"}]}`
	single := `{"role":"user","parts":{"text":"What is the weather in Paris?"}}`
	tools := `{"functionDeclarations":[{"name":"get_weather","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}},"required":["city"]}}]}`
	lists = []byte(`{"contents":[` + strings.Repeat(content+",", n-1) + content + `],"tools":[` + tools + `]}`)
	singles = []byte(`{"contents":[` + strings.Repeat(single+",", n-1) + single + `],"tools":` + tools + `}`)
	return lists, singles
}

// TestSingleValuesDecodeAsLists: a body whose repeated fields hold single
// values decodes to what the same body with lists does.
func TestSingleValuesDecodeAsLists(t *testing.T) {
	lists, singles := repeatedBodies(3)
	a, aerr := decodeBody(lists, false)
	b, berr := decodeBody(singles, false)
	if aerr != nil || berr != nil {
		t.Fatalf("lists: %v, singles: %v", aerr, berr)
	}
	if len(b.Contents) != 3 || len(b.Contents[2].Parts) != 1 || *b.Contents[2].Parts[0].Text != *a.Contents[2].Parts[0].Text ||
		len(b.Tools) != 1 || b.Tools[0].FunctionDeclarations[0].Name != "get_weather" {
		t.Fatalf("singles decoded to %+v", b)
	}
}

// BenchmarkSingleValues compares decoding a body of lists with the same
// body of single values (decoded, refused, rewritten, decoded again).
func BenchmarkSingleValues(b *testing.B) {
	lists, singles := repeatedBodies(200)
	for name, body := range map[string][]byte{"lists": lists, "singles": singles} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := decodeBody(body, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
