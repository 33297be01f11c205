package anthropic_test

import (
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/anthropic"
)

// TestSDKCacheControlLimit: four cache_control breakpoints are served,
// a fifth gets the API's 400, streamed or not.
func TestSDKCacheControlLimit(t *testing.T) {
	ts := newServer(t, mockprovider.Options{})
	c := client(ts, "cache")
	params := func(breakpoints int) sdk.MessageNewParams {
		p := newParams("What's the weather in Paris?")
		p.CacheControl = sdk.NewCacheControlEphemeralParam()
		p.System = []sdk.TextBlockParam{{Text: "You are a weather assistant.", CacheControl: sdk.NewCacheControlEphemeralParam()}}
		p.Tools[1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
		p.Messages[0].Content[0].OfText.CacheControl = sdk.NewCacheControlEphemeralParam()
		if breakpoints > 4 {
			p.Tools[0].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		return p
	}
	for name, send := range map[string]func(sdk.MessageNewParams) (*sdk.Message, error){"json": nonStreaming(c), "sse": streaming(c)} {
		if _, err := send(params(4)); err != nil {
			t.Fatalf("%s: four breakpoints: %v", name, err)
		}
		assertAPIError(t, send, params(5), anthropic.RuleCacheControlLimit, "A maximum of 4 blocks with cache_control may be provided. Found 5.")
	}
}
