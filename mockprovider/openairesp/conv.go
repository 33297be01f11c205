package openairesp

import (
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/session"
)

// Item is one input item as the checks and the conversation read it: the
// members they need, lifted out of whichever variant it is. Index is its
// position in the request's input array, or -1 for an item taken from a
// stored response.
type Item struct {
	// said is what the item says in the conversation (saidBy), made when
	// the input is read (takeItems) and shared, read only, by every
	// request of the session that resends the item (resumed.go); nil for
	// items read otherwise, and for items that say nothing.
	said []conv.Part
	// readBack is the item as a stored response's items read it back
	// (storedItem of Raw), made with it (takeItems) so that a response
	// keeping it need not decode it again; nil when not made.
	readBack *Item
	// facts are what the items up to this one hold (prefix.go), set as
	// it is taken from the input.
	facts prefixFacts
	// turnsAt is where the conversation stood after this item, set as the
	// conversation is first built with it (conversationIn).
	turnsAt turnsAt
	// Type is the item's type ("message" for a message in any form).
	Type string
	// Typed is set when the item carried a type member.
	Typed            bool
	ID               string
	Role             string
	CallID           *string
	Name             *string
	Arguments        jsontext.Value
	Content          *MessageContent
	Output           *ResponseInputItemFunctionCallOutputOutputUnionParam
	EncryptedContent *string
	Summary          []ResponseReasoningItemSummaryParam
	// HasSummary is set when summary was sent (an empty list counts).
	HasSummary bool
	// Execution is a tool_search_call's: "client" when the client runs
	// the search and answers it.
	Execution string
	// AdditionalTools is an additional_tools item's.
	AdditionalTools *ResponseInputItemAdditionalToolsParam
	// FromReference is set on an item an item_reference stood for.
	FromReference bool
	// Unresolved marks an item_reference that names no item; NotPersisted
	// one whose item was never stored (store:false).
	Unresolved, NotPersisted bool

	Raw   jsontext.Value
	Index int
}

// Kind is the item type.
func (it *Item) Kind() string { return it.Type }

// Assistant reports whether the item is model output replayed as input:
// such items group into one assistant turn.
func (it *Item) Assistant() bool {
	switch it.Type {
	case "reasoning", "function_call":
		return true
	case "message":
		return it.Role == "assistant"
	}
	return false
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// itemOf lifts the members of one decoded input item.
func itemOf(u *ResponseInputItemUnionParam, index int) Item {
	it := Item{Raw: u.raw, Index: index}
	// The variant says the type: the decoder chose it by its one tag, or,
	// for a message, by "message" or by no type at all (a message's Type
	// member tells which). Only the hosted-tool items read it again.
	switch {
	case u.OfMessage != nil && u.OfMessage.Type == "" && u.OfMessage.Role == "" && !u.OfMessage.Content.Present() && str(u.OfMessage.ID) != "":
		// {"id": …} alone: the type-less form of an item reference.
		it.Type, it.ID = "item_reference", *u.OfMessage.ID
	case u.OfMessage != nil:
		m := u.OfMessage
		it.Type, it.Typed, it.ID, it.Role, it.Content = "message", m.Type != "", str(m.ID), m.Role, &m.Content
	case u.OfFunctionCall != nil:
		f := u.OfFunctionCall
		it.Type, it.Typed, it.ID, it.CallID, it.Name, it.Arguments = "function_call", true, str(f.ID), f.CallID, f.Name, f.Arguments
	case u.OfFunctionCallOutput != nil:
		o := u.OfFunctionCallOutput
		it.Type, it.Typed, it.ID, it.CallID, it.Output = "function_call_output", true, str(o.ID), o.CallID, &o.Output
	case u.OfReasoning != nil:
		r := u.OfReasoning
		it.Type, it.Typed, it.ID, it.EncryptedContent, it.Summary, it.HasSummary = "reasoning", true, str(r.ID), r.EncryptedContent, r.Summary, r.Summary != nil
	case u.OfItemReference != nil:
		it.Type, it.Typed, it.ID = "item_reference", true, str(u.OfItemReference.ID)
	case u.OfToolSearchCall != nil:
		t := u.OfToolSearchCall
		it.Type, it.Typed, it.ID, it.CallID, it.Execution, it.Arguments = "tool_search_call", true, str(t.ID), t.CallID, t.Execution, t.Arguments
	case u.OfCompaction != nil:
		it.Type, it.Typed, it.ID, it.EncryptedContent = "compaction", true, str(u.OfCompaction.ID), u.OfCompaction.EncryptedContent
	default:
		it.AdditionalTools = u.OfAdditionalTools
		// Hosted-tool items: only their type and id matter here.
		it.Type, it.Typed = typeMember(u.raw)
		var o struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(u.raw, &o, json.RejectUnknownMembers(false))
		it.ID = o.ID
	}
	return it
}

// resolveReferences replaces item_reference items by the items they
// name: an earlier item of the effective conversation, else an item the
// session stored (lookup; nil offline). A reference that finds nothing
// stays in place, marked for the rules. The items may be shared with the
// session's kept ones (resumed.go): each one changed is a copy.
func (r *Request) resolveReferences(lookup func(id string) (it Item, issued bool)) {
	if !r.hasReferences() {
		return // nothing to resolve: the map of ids is not built
	}
	byID := map[string]*Item{}
	for _, it := range r.Prior {
		if it.ID != "" {
			byID[it.ID] = it
		}
	}
	for i, it := range r.Items {
		if it.Type != "item_reference" {
			if it.ID != "" {
				byID[it.ID] = it
			}
			continue
		}
		marked := *it
		marked.facts = 0
		ref, ok := byID[it.ID]
		if !ok && lookup != nil {
			found, issued := lookup(it.ID)
			ok = found.Type != ""
			ref = &found
			// Issued by a store:false response, or asked for by one: the
			// API explains that such items are not kept.
			marked.NotPersisted = !ok && (issued || (r.Store != nil && !*r.Store))
		}
		if !ok {
			marked.Unresolved = true
			r.Items[i] = &marked
			continue
		}
		resolved := *ref
		resolved.Index, resolved.FromReference, resolved.facts = it.Index, true, 0
		r.Items[i] = &resolved
	}
	r.taken = 0
}

func (r *Request) hasReferences() bool {
	if r.factsKnown() {
		return r.taken&factReference != 0
	}
	for i := range r.Items {
		if r.Items[i].Type == "item_reference" {
			return true
		}
	}
	return false
}

// conversation builds the neutral form: adjacent assistant-side items
// (reasoning, calls, assistant messages) make one assistant turn, adjacent
// user-side items (user messages, call outputs) one user turn, since the
// model's scenario cursor counts assistant turns.
func (r *Request) conversation() *conv.Conversation { return r.conversationIn(nil, 0, false) }

// conversationIn is conversation for a request of session s whose first
// reused input items were the session's before: their turns are copied
// from the last conversation the session kept when it was built from the
// same items (keptTurns), and only the items after them are read. When
// keep, the session keeps this conversation's turns, and the items read
// now where the turns stood after each.
func (r *Request) conversationIn(s *session.Session, reused int, keep bool) *conv.Conversation {
	c := &conv.Conversation{Dialect: conv.OpenAIResponses, Model: r.Model, Stream: r.Stream, ToolChoice: r.toolChoice()}
	if r.PreviousResponseID != nil {
		c.PreviousResponseID = *r.PreviousResponseID
	}
	if r.W.MaxOutputTokens != nil {
		c.Controls.MaxOutputTokens = max(*r.W.MaxOutputTokens, 0)
	}
	c.Controls.SerialCalls = r.ParallelToolCalls != nil && !*r.ParallelToolCalls
	c.Controls.Output = r.output()
	for _, t := range r.Tools {
		if t.Type != "function" || t.Name == nil {
			continue
		}
		c.Tools = append(c.Tools, conv.Tool{Name: *t.Name, Description: str(t.Description), Parameters: []byte(t.Parameters), Strict: t.Strict != nil && *t.Strict})
	}
	// Functions an additional_tools input item brings are the model's to
	// call as well.
	for _, a := range r.additionalTools {
		for _, t := range a.Tools {
			if f := t.OfFunction; f != nil && f.Name != nil {
				c.Tools = append(c.Tools, conv.Tool{Name: *f.Name, Description: str(f.Description), Parameters: []byte(f.Parameters), Strict: f.Strict != nil && *f.Strict})
			}
		}
	}
	items := r.Effective()
	// call_id → function name, for the results whose call is not nearby:
	// from then on, of every call so far.
	var names map[string]string
	// A turn of one item says what the item says: its parts are the
	// item's own, shared (read only, and capped: an append copies them
	// out), so a resent conversation's turns cost no copy of their parts.
	// The parts of turns of several items share one array, each turn a
	// capped span of it, sized once for the most there can be.
	var parts []conv.Part
	turnStart, joined := 0, false
	// What the system and developer messages say, joined to the
	// instructions at the end.
	system := ""
	// The turns stand for r.Items alone (no stored items before them,
	// none replaced since they were taken): where they stood after each
	// item is then a fact of the items up to it.
	alone := len(r.Prior) == 0 && r.factsKnown()
	start := 0
	if alone && s != nil && reused > 0 {
		if kt, ok := keptTurns.Get(s, keptTurnsID); ok && len(kt.items) >= reused && kt.items[reused-1] == items[reused-1] && items[reused-1].turnsAt.ok {
			at := items[reused-1].turnsAt
			c.Turns = make([]conv.Turn, at.turns, len(items))
			copy(c.Turns, kt.turns[:at.turns])
			if at.turns > 0 {
				last := &c.Turns[at.turns-1]
				last.Parts = last.Parts[:at.parts:at.parts]
			}
			system, start = at.system, reused
		}
	}
	record := alone && keep
	add := func(role conv.Role, said []conv.Part) {
		if len(said) == 0 {
			return
		}
		if c.Turns == nil {
			c.Turns = make([]conv.Turn, 0, len(items))
		}
		n := len(c.Turns)
		if n == 0 || c.Turns[n-1].Role != role {
			c.Turns = append(c.Turns, conv.Turn{Role: role, Parts: said[:len(said):len(said)]})
			joined = false
			return
		}
		t := &c.Turns[n-1]
		if !joined {
			if parts == nil {
				parts = make([]conv.Part, 0, partsBound(items))
			}
			turnStart = len(parts)
			parts = append(parts, t.Parts...)
			joined = true
		}
		parts = append(parts, said...)
		t.Parts = parts[turnStart:len(parts):len(parts)]
	}
	// say adds what items[i] says to the conversation.
	say := func(i int, it *Item) {
		role := conv.User
		switch it.Type {
		case "message":
			switch it.Role {
			case "system", "developer":
				if said := textOf(it.Content); said != "" {
					system = joinNonEmpty(system, said)
				}
				return
			case "assistant":
				role = conv.Assistant
			}
		case "reasoning":
			role = conv.Assistant
		case "function_call":
			role = conv.Assistant
			if names != nil {
				names[str(it.CallID)] = str(it.Name)
			}
		case "function_call_output":
			id := str(it.CallID)
			name, ok := nameNearby(items, i, id)
			if !ok {
				if names == nil {
					names = callNames(items[:i])
				}
				name = names[id]
			}
			said := it.said
			if said == nil {
				said = saidBy(it, name)
			} else if said[0].Result.Name != name {
				// Named as the item's neighbours were when it was kept.
				result := *said[0].Result
				result.Name = name
				said = []conv.Part{{Kind: conv.KindResult, Result: &result}}
			}
			add(conv.User, said[:1])
			return
		}
		said := it.said
		if said == nil {
			said = saidBy(it, "")
		}
		add(role, said)
	}
	for i := start; i < len(items); i++ {
		say(i, items[i])
		if record && i >= reused {
			// Written before the session keeps the item (resume.Decode
			// keeps it after this decode), read only after.
			items[i].turnsAt = turnsAt{turns: len(c.Turns), parts: lastParts(c.Turns), system: system, ok: true}
		}
	}
	c.System = str(r.W.Instructions)
	if system != "" {
		c.System = joinNonEmpty(c.System, system)
	}
	if record && s != nil && len(items) > 0 {
		keptTurns.Put(s, session.KeptItem[*turnsKept]{ID: keptTurnsID, Value: &turnsKept{items: items, turns: c.Turns}})
	}
	return c
}

// callLookBack is how far back a result's call is looked for before the
// conversation maps every call's id to its name: a loop sends a call's
// result right after it.
const callLookBack = 8

// nameNearby is the name of the latest function_call among items[:i]
// whose call id is id, looking back callLookBack items at most; ok is
// false when that did not decide it.
func nameNearby(items []*Item, i int, id string) (name string, ok bool) {
	for j := i - 1; j >= 0 && j >= i-callLookBack; j-- {
		if it := items[j]; it.Type == "function_call" && str(it.CallID) == id {
			return str(it.Name), true
		}
	}
	return "", i <= callLookBack
}

// callNames maps the call id of each function_call to its name, the
// later of two calls with one id winning.
func callNames(items []*Item) map[string]string {
	names := map[string]string{}
	for _, it := range items {
		if it.Type == "function_call" {
			names[str(it.CallID)] = str(it.Name)
		}
	}
	return names
}

// saidBy is what an item says in the conversation, in the turn of its
// side: a user or assistant message's content parts, or the one part of
// a reasoning item, a call or a call's output (whose call is named
// callName). Nothing for any other item.
func saidBy(it *Item, callName string) []conv.Part {
	var out []conv.Part
	switch it.Type {
	case "message":
		if it.Role != "system" && it.Role != "developer" {
			eachContentPart(it.Content, func(p conv.Part) { out = append(out, p) })
		}
	case "reasoning":
		out = []conv.Part{{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{ID: it.ID, EncryptedContent: str(it.EncryptedContent), Summary: summaryText(it.Summary)}}}
	case "function_call":
		out = []conv.Part{{Kind: conv.KindCall, Call: &conv.Call{ID: str(it.CallID), Name: str(it.Name), Arguments: callArguments(it.Arguments), ItemID: it.ID}}}
	case "function_call_output":
		out = []conv.Part{{Kind: conv.KindResult, Result: &conv.Result{CallID: str(it.CallID), Name: callName, Content: outputContent(it.Output)}}}
	}
	return out
}

// partsBound is the most parts the items can make: one per item, or per
// content part of a message.
func partsBound(items []*Item) int {
	n := 0
	for i := range items {
		if c := items[i].Content; c != nil && len(c.OfParts) > 1 {
			n += len(c.OfParts)
		} else {
			n++
		}
	}
	return n
}

// callArguments decodes a replayed call's arguments string: the members
// of an object, an empty map for anything else.
func callArguments(raw jsontext.Value) map[string]any {
	// The string's content, unescaped (a string that decodes is one that
	// unquotes: the body was validated, UTF-8 and escapes included).
	if raw.Kind() == '"' {
		s, err := jsontext.AppendUnquote(nil, raw)
		if err == nil {
			var obj map[string]any
			if json.Unmarshal(s, &obj) == nil && obj != nil {
				return obj
			}
		}
	}
	return map[string]any{}
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

func (r *Request) toolChoice() conv.ToolChoice {
	tc := &r.W.ToolChoice
	switch {
	case tc.OfToolChoiceMode != nil:
		switch *tc.OfToolChoiceMode {
		case "none":
			return conv.ToolChoice{Mode: conv.ToolChoiceNone}
		case "required":
			return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		}
	case tc.OfFunctionTool != nil && str(tc.OfFunctionTool.Name) != "":
		return conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: *tc.OfFunctionTool.Name}
	case tc.OfAllowedTools != nil && tc.OfAllowedTools.Mode == "required":
		return conv.ToolChoice{Mode: conv.ToolChoiceRequired}
	}
	return conv.ToolChoice{Mode: conv.ToolChoiceAuto}
}

// partType is the type of one content part.
func partType(p *MessagePart) string {
	switch {
	case p.OfInputText != nil:
		return "input_text"
	case p.OfInputImage != nil:
		return "input_image"
	case p.OfInputFile != nil:
		return "input_file"
	case p.OfOutputText != nil:
		return "output_text"
	case p.OfRefusal != nil:
		return "refusal"
	}
	return ""
}

func textOf(c *MessageContent) string {
	if c == nil {
		return ""
	}
	if c.OfString != nil {
		return *c.OfString
	}
	var out []string
	for i := range c.OfParts {
		p := &c.OfParts[i]
		switch {
		case p.OfInputText != nil && str(p.OfInputText.Text) != "":
			out = append(out, *p.OfInputText.Text)
		case p.OfOutputText != nil && str(p.OfOutputText.Text) != "":
			out = append(out, *p.OfOutputText.Text)
		}
	}
	return strings.Join(out, "\n")
}

// eachContentPart hands each part of message content to add, in order.
func eachContentPart(c *MessageContent, add func(conv.Part)) {
	if c == nil {
		return
	}
	if c.OfString != nil {
		add(conv.Part{Kind: conv.KindText, Text: *c.OfString})
		return
	}
	for i := range c.OfParts {
		p := &c.OfParts[i]
		switch {
		case p.OfInputText != nil:
			add(conv.Part{Kind: conv.KindText, Text: str(p.OfInputText.Text)})
		case p.OfOutputText != nil:
			add(conv.Part{Kind: conv.KindText, Text: str(p.OfOutputText.Text)})
		case p.OfRefusal != nil:
			add(conv.Part{Kind: conv.KindRefusal, Text: str(p.OfRefusal.Refusal)})
		case p.OfInputImage != nil:
			ct := imageContent(p.OfInputImage.ImageURL, p.OfInputImage.FileID)
			add(conv.Part{Kind: conv.KindMedia, Media: &ct})
		case p.OfInputFile != nil:
			f := p.OfInputFile
			ct := fileContent(f.FileURL, f.Filename, f.FileData, f.FileID)
			add(conv.Part{Kind: conv.KindMedia, Media: &ct})
		}
	}
}

// outputContent reads a function_call_output's output: a string, or a
// list of input_text / input_image / input_file items.
func outputContent(o *ResponseInputItemFunctionCallOutputOutputUnionParam) []conv.Content {
	if o == nil {
		return nil
	}
	if o.OfString != nil {
		return []conv.Content{{Type: conv.ContentText, Text: *o.OfString}}
	}
	var out []conv.Content
	for _, p := range o.OfResponseFunctionCallOutputItemArray {
		switch {
		case p.OfInputText != nil:
			out = append(out, conv.Content{Type: conv.ContentText, Text: str(p.OfInputText.Text)})
		case p.OfInputImage != nil:
			out = append(out, imageContent(p.OfInputImage.ImageURL, p.OfInputImage.FileID))
		case p.OfInputFile != nil:
			f := p.OfInputFile
			out = append(out, fileContent(f.FileURL, f.Filename, f.FileData, f.FileID))
		}
	}
	return out
}

func imageContent(url, fileID *string) conv.Content {
	ct := conv.Content{Type: conv.ContentImage}
	switch u := str(url); {
	case strings.HasPrefix(u, "data:"):
		ct.MIMEType, ct.Data = splitDataURL(u)
	case u != "":
		ct.URL = u
	case str(fileID) != "":
		ct.URL = "file:" + *fileID
	}
	return ct
}

func fileContent(url, filename, data, fileID *string) conv.Content {
	ct := conv.Content{Type: conv.ContentDocument, URL: str(url), DisplayName: str(filename)}
	if str(data) != "" {
		ct.MIMEType, ct.Data = splitDataURL(*data)
	}
	if ct.URL == "" && str(fileID) != "" {
		ct.URL = "file:" + *fileID
	}
	return ct
}

// splitDataURL splits "data:image/png;base64,AAAA" into its MIME type and
// payload; a bare payload is returned as is.
func splitDataURL(s string) (mime, data string) {
	rest, ok := strings.CutPrefix(s, "data:")
	if !ok {
		return "", s
	}
	head, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return "", rest
	}
	mime, _, _ = strings.Cut(head, ";")
	return mime, payload
}

func summaryText(parts []ResponseReasoningItemSummaryParam) string {
	var out []string
	for _, p := range parts {
		if str(p.Text) != "" {
			out = append(out, *p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// TextFormat is text.format as the checks see it (nil when absent): in
// the Responses API a json_schema format carries its name, schema and
// strict itself, not under a json_schema member as Chat's does.
func (r *Request) TextFormat() *ResponseFormatTextConfigUnionParam {
	if r.W.Text == nil {
		return nil
	}
	f := &r.W.Text.Format
	if f.OfText == nil && f.OfJSONSchema == nil && f.OfJSONObject == nil {
		return nil
	}
	return f
}

// output is the answer's form text.format demands (nil: free text).
func (r *Request) output() *conv.Output {
	f := r.TextFormat()
	switch {
	case f == nil:
		return nil
	case f.OfJSONObject != nil:
		return &conv.Output{Kind: conv.OutputJSONObject}
	case f.OfJSONSchema != nil:
		js := f.OfJSONSchema
		var schema []byte
		if len(js.Schema) > 0 && js.Schema.Kind() != 'n' {
			schema = js.Schema
		}
		return &conv.Output{Kind: conv.OutputJSONSchema, Name: str(js.Name), Schema: schema}
	}
	return nil
}
