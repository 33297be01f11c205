package suite_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/reports"
	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/refdriver"
	"github.com/toolwire/toolwire/suite/reference"
	"github.com/toolwire/toolwire/suite/task"
)

// The reference driver's Bedrock loop, streamed and not, sends the task's
// output schema on every request as outputConfig.textFormat json_schema,
// the schema as a JSON string, which the mock reads as the demand
// (bedrock.structured-answer passes).
func TestBedrockReferenceDriverSendsOutputSchema(t *testing.T) {
	h, err := suite.New(suite.Config{Driver: reference.Driver(refdriver.None), Dialects: []conv.Dialect{conv.Bedrock},
		Scenarios: []string{"selftest-bedrock-output"}, Parallel: 2, Mock: selftestMock(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	plan := h.Plan()
	if len(plan) != 2 {
		t.Fatalf("plan %d runs, want 2 (streamed and not)", len(plan))
	}
	for _, c := range plan {
		x := h.Drive(context.Background(), c)
		for _, r := range x.Results() {
			if r.Outcome != reports.Pass && r.Outcome != reports.NotExercised {
				t.Errorf("%s %s %s: %s", c.Name(), r.Rule, r.Outcome, r.Message)
			}
		}
		if len(x.Entries) != 2 {
			t.Fatalf("%s: %d requests, want 2", c.Name(), len(x.Entries))
		}
		for i, e := range x.Entries {
			format := gjson.GetBytes(e.Request, "outputConfig.textFormat")
			var schema any
			if err := json.Unmarshal([]byte(format.Get("structure.jsonSchema.schema").Str), &schema); err != nil {
				t.Fatalf("%s request %d: outputConfig.textFormat %s: schema is not a JSON string: %v", c.Name(), i+1, format.Raw, err)
			}
			if format.Get("type").Str != "json_schema" || format.Get("structure.jsonSchema.name").Str != x.Task.Output.Name || !task.JSONEqual(schema, x.Task.Output.Schema) {
				t.Errorf("%s request %d: outputConfig.textFormat %s, want the task's %+v", c.Name(), i+1, format.Raw, x.Task.Output)
			}
		}
	}
}
