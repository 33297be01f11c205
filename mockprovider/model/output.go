package model

import (
	"encoding/json"
	"fmt"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/scenario"
)

// shapeOutput makes a final answer take the form the request asked for
// (structured outputs): the scripted output value, or scripted text that
// is already JSON, is sent as it is and checked against the schema (a
// mismatch is the scenario's error, noted in the journal); anything else
// is replaced by a value built from the schema by the engine that builds
// tool arguments. A turn with calls is left alone: the structured form
// applies to the answer that ends the loop.
func shapeOutput(syn *synthesizer, c *conv.Conversation, r *Reply, scripted any, where string) {
	out := c.Controls.Output
	if out == nil || len(r.Calls()) > 0 {
		return
	}
	for _, p := range r.Turn.Parts {
		if p.Kind == conv.KindRefusal {
			return // a refusal is the model declining to answer in the form
		}
	}
	text := r.Text()
	var value any
	switch {
	case scripted != nil:
		value = scripted
	case where != "" && text != "" && json.Valid([]byte(text)):
		if err := json.Unmarshal([]byte(text), &value); err != nil {
			value = nil
		}
	}
	if value != nil {
		if problem := outputProblem(out, value); problem != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("scenario error: %s: the scripted output does not match what the request asks (%s): %s", where, out.Describe(), problem))
		}
	} else {
		if where != "" && text != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("scenario error: %s: scripts free text, but the request asks for %s; sent a value built from the schema", where, out.Describe()))
		}
		value = syn.outputValue(c, out, text)
	}
	b, err := json.Marshal(value)
	if err != nil {
		b = []byte("{}")
	}
	setText(r, string(b))
}

// outputProblem is why value does not satisfy out ("" when it does).
func outputProblem(out *conv.Output, value any) string {
	if out.Kind == conv.OutputJSONObject {
		if _, ok := value.(map[string]any); !ok {
			return "not a JSON object"
		}
		return ""
	}
	var schema map[string]any
	if json.Unmarshal(out.Schema, &schema) != nil {
		return ""
	}
	sch, err := scenario.CompileParameters(schema)
	if err != nil {
		return "" // a schema the mock cannot compile is the rules' business
	}
	text, err := json.Marshal(value)
	if err != nil {
		return err.Error()
	}
	return scenario.TextProblem(sch, string(text))
}

// outputValue builds the answer's value: from the schema, or for JSON mode
// an object carrying the text the model would have said.
func (s *synthesizer) outputValue(c *conv.Conversation, out *conv.Output, text string) any {
	if out.Kind == conv.OutputJSONObject || len(out.Schema) == 0 {
		if text == "" {
			text = DefaultText
		}
		return map[string]any{"answer": text}
	}
	if s.err != nil {
		return map[string]any{}
	}
	v, notes, err := SynthesizeValueContext(s.ctx, out.Schema)
	if err != nil {
		s.err = err
		return map[string]any{}
	}
	for _, n := range notes {
		s.notes = append(s.notes, "output ("+out.Describe()+"): "+n)
	}
	return v
}

// setText replaces the reply's text parts by one holding text.
func setText(r *Reply, text string) {
	parts := r.Turn.Parts[:0:0]
	placed := false
	for _, p := range r.Turn.Parts {
		if p.Kind == conv.KindText {
			if placed {
				continue
			}
			p.Text, placed = text, true
		}
		parts = append(parts, p)
	}
	if !placed {
		parts = append(parts, conv.Part{Kind: conv.KindText, Text: text})
	}
	r.Turn.Parts = parts
}
