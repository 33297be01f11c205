package openairesp_test

import (
	"context"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/openairesp"
)

// apiError asserts err is the API error with this status and message.
func apiError(t *testing.T, err error, status int, message string) *openai.Error {
	t.Helper()
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != status || apiErr.Message != message {
		t.Fatalf("got %v, want %d %q", err, status, message)
	}
	return apiErr
}

// TestSDKDuplicateItemIDs: replaying a response's output items while also
// continuing it with previous_response_id sends its items twice.
func TestSDKDuplicateItemIDs(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-dup")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	cs := calls(first)
	dup := append(replay(first), output(cs[0].CallID, "warm"))
	for _, stream := range []bool{false, true} {
		params := responses.ResponseNewParams{Model: "gpt-5", Tools: tools, PreviousResponseID: openai.String(first.ID), Input: inputList(dup...)}
		if stream {
			s := c.Responses.NewStreaming(ctx, params)
			for s.Next() {
			}
			err = s.Err()
		} else {
			_, err = c.Responses.New(ctx, params)
		}
		apiErr := apiError(t, err, 400, "Duplicate item found with id "+first.Output[0].ID+". Remove duplicate items from your input and try again.")
		if apiErr.Param != "input" {
			t.Errorf("param %q", apiErr.Param)
		}
	}
	// The fix: only what is new.
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Tools: tools, PreviousResponseID: openai.String(first.ID),
		Input: inputList(output(cs[0].CallID, "warm"))}); err != nil {
		t.Fatal(err)
	}
}

// TestSDKItemsNotPersisted: with store:false nothing is kept, so passing
// an item back by its id alone is a 404 that says why.
func TestSDKItemsNotPersisted(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-unstored")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false), Tools: tools,
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	cs := calls(first)
	rs := first.Output[0].ID
	byID := inputList(userText("Weather in Rome?"),
		responses.ResponseInputItemUnionParam{OfItemReference: &responses.ResponseInputItemItemReferenceParam{ID: rs}},
		replay(first)[1], output(cs[0].CallID, "warm"))
	want := "Item with id '" + rs + "' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."
	for _, stream := range []bool{false, true} {
		params := responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false), Tools: tools, Input: byID}
		if stream {
			s := c.Responses.NewStreaming(ctx, params)
			for s.Next() {
			}
			err = s.Err()
		} else {
			_, err = c.Responses.New(ctx, params)
		}
		apiError(t, err, 404, want)
	}
	// The fix: the whole item (its encrypted content) instead of its id.
	if _, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-5", Store: openai.Bool(false), Tools: tools,
		Input: inputList(append(responses.ResponseInputParam{userText("Weather in Rome?")}, append(replay(first), output(cs[0].CallID, "warm"))...)...)}); err != nil {
		t.Fatal(err)
	}
}

// TestSDKItemReferences: an item_reference stands for the stored item it
// names (a function_call answered in a later request without
// previous_response_id), and one naming nothing is a 404.
func TestSDKItemReferences(t *testing.T) {
	ts := mockprovider.NewTestServer(t, mockprovider.Options{})
	c := client(ts, "sk-refs")
	ctx := context.Background()
	tools := []responses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: tools, Input: inputList(userText("Weather in Rome?"))})
	if err != nil {
		t.Fatal(err)
	}
	cs := calls(first)
	ref := func(id string) responses.ResponseInputItemUnionParam {
		return responses.ResponseInputItemUnionParam{OfItemReference: &responses.ResponseInputItemItemReferenceParam{ID: id, Type: "item_reference"}}
	}
	for _, stream := range []bool{false, true} {
		params := responses.ResponseNewParams{Model: "gpt-4.1", Tools: tools, Input: inputList(userText("Weather in Rome?"), ref(cs[0].ID), output(cs[0].CallID, "warm"))}
		var final *responses.Response
		if stream {
			s := c.Responses.NewStreaming(ctx, params)
			for s.Next() {
				if ev := s.Current(); ev.Type == "response.completed" {
					r := ev.AsResponseCompleted().Response
					final = &r
				}
			}
			err = s.Err()
		} else {
			final, err = c.Responses.New(ctx, params)
		}
		if err != nil || final == nil || len(calls(final)) != 0 || final.OutputText() == "" {
			t.Fatalf("stream=%v: %v %v", stream, err, final)
		}
		_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: "gpt-4.1", Tools: tools, Input: inputList(userText("Weather in Rome?"), ref("fc_unknown"), output(cs[0].CallID, "warm"))})
		apiError(t, err, 404, "Item with id 'fc_unknown' not found.")
	}
	for _, e := range ts.Journal("sk-refs") {
		if e.Status == 200 && len(e.Violations) > 0 {
			t.Errorf("answered request journaled %v", e.Violations)
		}
		if e.Status == 404 && e.Answered != openairesp.RuleItemReference {
			t.Errorf("404 answered by %q", e.Answered)
		}
	}
}
