package bedrock

import (
	"go/build"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The drift test holds the wire structs to the Smithy model the official
// Go SDK serializes (github.com/aws/aws-sdk-go-v2/service/bedrockruntime
// schemas/schemas.go declares every member of every shape as a variable
// Shape_member): each typed shape must have exactly the SDK's members, so
// a member a new SDK sends shows up here as a red test, never as a 400
// in a user's face, and the mock invents none.

// wireShapes are the Smithy shapes the mock types, and their structs.
var wireShapes = map[string]reflect.Type{
	"ConverseRequest":        reflect.TypeFor[Request](),
	"ConverseStreamRequest":  reflect.TypeFor[Request](),
	"Message":                reflect.TypeFor[Message](),
	"ContentBlock":           reflect.TypeFor[Block](),
	"ImageBlock":             reflect.TypeFor[ImageBlock](),
	"ImageSource":            reflect.TypeFor[ImageSource](),
	"DocumentBlock":          reflect.TypeFor[DocumentBlock](),
	"DocumentSource":         reflect.TypeFor[DocumentSource](),
	"ToolUseBlock":           reflect.TypeFor[ToolUse](),
	"ToolResultBlock":        reflect.TypeFor[ToolResult](),
	"ToolResultContentBlock": reflect.TypeFor[ResultBlock](),
	"ReasoningContentBlock":  reflect.TypeFor[Reasoning](),
	"ReasoningTextBlock":     reflect.TypeFor[ReasoningText](),
	"SystemContentBlock":     reflect.TypeFor[SystemBlock](),
	"InferenceConfiguration": reflect.TypeFor[InferenceConfig](),
	"ToolConfiguration":      reflect.TypeFor[ToolConfig](),
	"Tool":                   reflect.TypeFor[Tool](),
	"ToolSpecification":      reflect.TypeFor[ToolSpec](),
	"ToolInputSchema":        reflect.TypeFor[InputSchema](),
	"ToolChoice":             reflect.TypeFor[ToolChoice](),
	"SpecificToolChoice":     reflect.TypeFor[SpecificToolChoice](),
}

var memberVar = regexp.MustCompile(`(?m)^var ([A-Za-z0-9]+)_([A-Za-z0-9]+) \*smithy\.Schema`)

// sdkMembers reads the shapes' members from the SDK's schemas.go.
func sdkMembers(t *testing.T) map[string][]string {
	t.Helper()
	pkg, err := build.Import("github.com/aws/aws-sdk-go-v2/service/bedrockruntime/schemas", ".", build.FindOnly)
	if err != nil {
		t.Fatalf("locating the SDK's schemas: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(pkg.Dir, "schemas.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, m := range memberVar.FindAllStringSubmatch(string(src), -1) {
		out[m[1]] = append(out[m[1]], m[2])
	}
	return out
}

func jsonNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func TestWireMatchesSDK(t *testing.T) {
	sdk := sdkMembers(t)
	if len(sdk["ConverseRequest"]) == 0 {
		t.Fatal("schemas.go has no ConverseRequest members: the SDK's layout changed")
	}
	for shape, typ := range wireShapes {
		want := slices.Sorted(slices.Values(sdk[shape]))
		got := slices.Sorted(slices.Values(jsonNames(typ)))
		for _, m := range want {
			if !slices.Contains(got, m) {
				t.Errorf("%s.%s: the SDK sends it, %s does not decode it", shape, m, typ.Name())
			}
		}
		for _, m := range got {
			if !slices.Contains(want, m) {
				t.Errorf("%s.%s: %s decodes a member the SDK does not define", shape, m, typ.Name())
			}
		}
	}
}
