package model

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Bounds at the edge of float64 once made synthesis overflow (a minimum of
// 1e308 gave -9223372036854775808, bounds of ±1e308 gave +Inf); every
// value must validate, read back from the JSON text, against its schema.
func TestExtremeBoundsValidate(t *testing.T) {
	for _, prop := range []string{
		`{"type":"integer","minimum":1e308}`,
		`{"type":"integer","maximum":-1e308}`,
		`{"type":"integer","exclusiveMinimum":1e308}`,
		`{"type":"integer","exclusiveMaximum":-1e308}`,
		`{"type":"integer","minimum":-1e308,"maximum":1e308}`,
		`{"type":"integer","minimum":1e308,"multipleOf":1e300}`,
		`{"type":"integer","maximum":-1e308,"multipleOf":1e300}`,
		`{"type":"integer","minimum":1e308,"multipleOf":2.5}`,
		`{"type":"integer","multipleOf":1e300}`,
		`{"type":"integer","minimum":9.3e18}`,
		`{"type":"integer","exclusiveMinimum":9223372036854775807}`,
		`{"type":"integer","minimum":1e20,"maximum":1e20}`,
		`{"type":"integer","minimum":1e20,"multipleOf":7}`,
		`{"type":"integer","exclusiveMaximum":-1e300,"multipleOf":3}`,
		`{"type":"number","minimum":-1e308,"maximum":1e308}`,
		`{"type":"number","exclusiveMinimum":1e308}`,
		`{"type":"number","exclusiveMaximum":-1e308}`,
		`{"type":"number","minimum":1.7976931348623157e308}`,
	} {
		schema := `{"type":"object","properties":{"v":` + prop + `},"required":["v"]}`
		args, notes, err := SynthesizeContext(context.Background(), json.RawMessage(schema))
		if err != nil {
			t.Fatalf("%s: %v", prop, err)
		}
		b, err := json.Marshal(args)
		if err != nil {
			t.Errorf("%s: arguments %v do not encode: %v", prop, args, err)
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := compileFor(t, schema).Validate(v); err != nil {
			t.Errorf("%s: %s is invalid (notes %q):\n%v", prop, b, notes, err)
		}
	}
}

// Bounds no float64 meets (here no integer at all) are noted, not
// silently broken.
func TestUnwritableIntegerIsNoted(t *testing.T) {
	_, notes, _ := SynthesizeContext(context.Background(), json.RawMessage(`{"type":"object","properties":{"v":{"type":"integer","minimum":1e300,"maximum":1e300,"multipleOf":7}},"required":["v"]}`))
	if !strings.Contains(strings.Join(notes, "\n"), "no number a float64 writes meets") {
		t.Errorf("notes %q", notes)
	}
}

// What a schema spells out (a const, an enum member, a default) costs its
// size: one large const behind a $ref, required a thousand times, once
// made arguments a thousand times its size.
func TestGivenValuesAreCharged(t *testing.T) {
	big := strings.Repeat("x", 100_000)
	props, req := make([]string, 1000), make([]string, 1000)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"$ref":"#/$defs/big"}`, i)
		req[i] = fmt.Sprintf(`"p%d"`, i)
	}
	schema := `{"type":"object","$defs":{"big":{"const":"` + big + `"}},"properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	args, notes, err := SynthesizeContext(context.Background(), json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(args)
	// The budget, one value past it, and the property names with null.
	if limit := MaxSynthBytes + len(big) + len(schema); len(b) > limit {
		t.Errorf("arguments of %d bytes, want at most %d", len(b), limit)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "synthesis budget") {
		t.Errorf("notes %q", notes)
	}
}

// Many strings each under the per-string bound but together far over the
// budget: each is honoured while the budget lasts.
func TestManyLongStringsShareTheBudget(t *testing.T) {
	props, req := make([]string, 2000), make([]string, 2000)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string","minLength":65536}`, i)
		req[i] = fmt.Sprintf(`"p%d"`, i)
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	args, notes, err := SynthesizeContext(context.Background(), json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(args)
	if limit := MaxSynthBytes + len(schema); len(b) > limit {
		t.Errorf("arguments of %d bytes, want at most %d", len(b), limit)
	}
	if len(args) != 2000 {
		t.Errorf("%d properties, want every required one", len(args))
	}
	if !strings.Contains(strings.Join(notes, "\n"), "synthesis budget") {
		t.Errorf("notes %q", notes)
	}
}

// oneOf disambiguation compiles the whole document per check: a 40 KB
// schema with 20 oneOfs once ran 40 checks (1.6 MB compiled); the checks
// together now stop at maxOneOfBytes, and the note says so.
func TestOneOfChecksShareOneBudget(t *testing.T) {
	props, req := make([]string, 20), make([]string, 20)
	pad := strings.Repeat("d", 2000)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"description":%q,"oneOf":[{"type":"integer"},{"type":"number"}]}`, i, pad)
		req[i] = fmt.Sprintf(`"p%d"`, i)
	}
	schema := `{"type":"object","properties":{` + strings.Join(props, ",") + `},"required":[` + strings.Join(req, ",") + `]}`
	if n := len(schema) * maxOneOfChecks; n <= maxOneOfBytes {
		t.Fatalf("the schema is too small for the test: %d", n)
	}
	_, notes, err := SynthesizeContext(context.Background(), json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "oneOf beyond toolwire's synthesis bounds") {
		t.Errorf("notes %q", notes)
	}
}
