package wirejson_test

import (
	"slices"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// content is the string-or-blocks union most dialects have: the pattern
// every dialect's unions follow.
type content struct {
	Text   *string
	Blocks []block
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (c *content) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	switch dec.PeekKind() {
	case '"':
		var s string
		if err := json.UnmarshalDecode(dec, &s); err != nil {
			return err
		}
		c.Text = &s
		return nil
	case '[':
		return json.UnmarshalDecode(dec, &c.Blocks)
	}
	_, _ = dec.ReadValue()
	return &wirejson.InvalidError{Message: "content must be a string or a list"}
}

type message struct {
	Role    string  `json:"role"`
	Content content `json:"content"`
}

type request struct {
	Model     string    `json:"model"`
	MaxTokens int64     `json:"max_tokens"`
	Temp      *float64  `json:"temperature,omitempty"`
	Messages  []message `json:"messages"`
}

func TestDecode(t *testing.T) {
	cases := []struct {
		name string
		body string
		kind wirejson.Kind
		path []string
	}{
		{"good", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"user","content":[{"type":"text","text":"x"}]}]}`, 0, nil},
		{"syntax", `{"model":`, wirejson.Syntax, nil},
		{"unknown top", `{"model":"m","foo":1}`, wirejson.UnknownMember, []string{"foo"}},
		{"unknown nested in union", `{"messages":[{"role":"user","content":[{"type":"text","text":"x","foo":1}]}]}`, wirejson.UnknownMember, []string{"messages", "0", "content", "0", "foo"}},
		{"wrong type", `{"model":5}`, wirejson.WrongType, []string{"model"}},
		{"wrong type nested", `{"messages":[{"role":"user","content":[{"type":7}]}]}`, wirejson.WrongType, []string{"messages", "0", "content", "0", "type"}},
		{"union rejects", `{"messages":[{"role":"user","content":5}]}`, wirejson.Invalid, []string{"messages", "0", "content"}},
		{"fraction for int", `{"max_tokens":1.5}`, wirejson.OutOfRange, []string{"max_tokens"}},
		{"huge", `{"temperature":1e999999}`, wirejson.OutOfRange, []string{"temperature"}},
		{"duplicate", `{"model":"a","model":"b"}`, wirejson.DuplicateMember, []string{"model"}},
		{"bad utf8", "{\"messages\":[{\"role\":\"user\",\"content\":\"a\xffb\"}]}", wirejson.InvalidUTF8, []string{"messages", "0", "content"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r request
			_, err := wirejson.Decode([]byte(c.body), &r, wirejson.Options{})
			if c.kind == 0 {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("decoded %s; want %v", c.body, c.kind)
			}
			if err.Kind != c.kind {
				t.Fatalf("kind = %v (%v); want %v", err.Kind, err, c.kind)
			}
			if c.path != nil && !slices.Equal(err.Path, c.path) {
				t.Fatalf("path = %q; want %q (%v)", err.Path, c.path, err)
			}
		})
	}
}

func TestLenientCollectsUnknown(t *testing.T) {
	var r request
	unknown, err := wirejson.Decode([]byte(`{"model":"m","foo":1,"messages":[{"role":"user","content":[{"type":"text","text":"x","bar":2}]}]}`), &r, wirejson.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(unknown) != 2 || wirejson.Dotted(unknown[0]) != "foo" || wirejson.Dotted(unknown[1]) != "messages.0.content.0.bar" {
		t.Fatalf("unknown = %q", unknown)
	}
	if r.Model != "m" || r.Messages[0].Content.Blocks[0].Text != "x" {
		t.Fatalf("lenient decode lost data: %+v", r)
	}
}

func TestBracketed(t *testing.T) {
	if got := wirejson.Bracketed([]string{"contents", "0", "parts", "1", "functionCall"}); got != "contents[0].parts[1].functionCall" {
		t.Fatal(got)
	}
}

// TestTypeMember: the tag, whether it is a string, and whether the member
// is there at all, from one reading; only the top level counts.
func TestTypeMember(t *testing.T) {
	for _, c := range []struct {
		raw         string
		tag         string
		ok, present bool
	}{
		{`{"type":"custom","name":"f"}`, "custom", true, true},
		{`{"name":"f","type":"t\u0065xt"}`, "text", true, true},
		{`{"name":{"type":"inner"},"typ\u0065":"outer","more":[1,{"type":"x"}]}`, "outer", true, true},
		{`{"content":[{"type":"text"}],"role":"user"}`, "", false, false},
		{`{"type":1}`, "", false, true},
		{`{"type":null}`, "", false, true},
		{`{"type":{"type":"x"}}`, "", false, true},
		{`{"name":"f","input_schema":{"type":"object"}}`, "", false, false},
		{`{}`, "", false, false},
	} {
		tag, ok, present := wirejson.TypeMember([]byte(c.raw))
		if tag != c.tag || ok != c.ok || present != c.present {
			t.Errorf("TypeMember(%s) = %q, %v, %v; want %q, %v, %v", c.raw, tag, ok, present, c.tag, c.ok, c.present)
		}
		if tag2, ok2 := wirejson.TypeTag([]byte(c.raw)); tag2 != c.tag || ok2 != c.ok {
			t.Errorf("TypeTag(%s) = %q, %v; want %q, %v", c.raw, tag2, ok2, c.tag, c.ok)
		}
	}
}
