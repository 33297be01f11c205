package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/wire"
	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// Request is a decoded Messages request, the input of the rule checks.
// Fields whose wire type the rules judge (tool_use.input, is_error,
// tool_result content tags) stay raw, so a wrong type reaches the rule that
// answers it with the API's own message instead of failing decoding.
type Request struct {
	Model     string
	MaxTokens int64
	// Present records which required top-level fields the body carried.
	HasModel, HasMaxTokens, HasMessages bool

	System string
	// Messages are shared with the session's next request that resends
	// them (read only).
	Messages   []*Message
	Tools      []conv.Tool
	ToolChoice conv.ToolChoice
	Stream     bool
	// StopSequences is stop_sequences; SerialCalls is tool_choice's
	// disable_parallel_tool_use: true (one tool_use a turn).
	StopSequences []string
	SerialCalls   bool
	// Thinking is set when extended thinking is enabled: only then does
	// the reply carry a thinking block.
	Thinking bool
	// AdaptiveThinking: thinking of type "adaptive" (the model decides
	// whether to think; forced tool use is allowed).
	AdaptiveThinking bool
	// ThinkingBudget is thinking.budget_tokens of type "enabled" (nil
	// otherwise).
	ThinkingBudget *int64
	// Interleaved is set under the interleaved-thinking beta: the model
	// thinks after tool results too, and the budget may pass max_tokens.
	Interleaved bool
	// Betas are the anthropic-beta values (header, or the body's
	// anthropic_beta on Vertex).
	Betas []string
	// BodySize is the body's length in bytes.
	BodySize int
	// CountTokens is set for POST /v1/messages/count_tokens.
	CountTokens bool
	// caps are the members the model catalog's rules read (capabilities.go).
	caps capabilityParams
	// out are the structured-output members (output.go).
	out outputParams
	// compiled are the schemas the structured-output rules judge
	// (rules_output.go), decoded once.
	compiled []compiledSchema
	// HasAnthropicVersion: the body carries anthropic_version (Vertex).
	HasAnthropicVersion bool
	// ToolChoiceType is tool_choice.type as sent ("" when absent).
	ToolChoiceType string
	// CacheBreakpoints counts the blocks (and tools, and the top-level
	// automatic breakpoint) that carry cache_control.
	CacheBreakpoints int
	// cache is where the breakpoints sit (nil when none is set).
	cache *cachePlan
	// Unknown are the dotted paths of members the API does not define,
	// kept under --lenient for the known-fields rule to journal.
	Unknown []string
	// Tool names as declared, in order, with their paths (every tool
	// type, server tools included), for the name rules.
	ToolNames []string
	// customIndex maps Tools[i] to its index in tools[].
	customIndex []int

	// Groups are the messages as the API sees them: consecutive messages
	// of the same role merged into one turn (SDK doc comment on
	// MessageParam; https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
	Groups []*Group
}

// Message is one entry of messages[], as sent.
type Message struct {
	Index  int
	Role   string
	Blocks []Block
	// Empty is set for content "" or [] (a system message carrying only
	// output_config is not empty).
	Empty bool
	// ClearAt is a system message's clear_at: "next_user_message" hides
	// its text from the model once a later user message exists.
	ClearAt string

	// parts are the message's blocks as the conversation reads them (nil
	// for a system message, which takes no turn), a result named after
	// its call in an earlier block; size is what the blocks add to the
	// prompt-size estimate; facts what the rules read of its blocks. They
	// depend only on this message and those before it, so they are made
	// once, when the message is decoded, and a session's next request
	// that resends the message shares them (read only).
	parts []conv.Part
	size  int
	facts facts
	// turn is the message as a turn of its own (mergeRuns copies it
	// when a run merges it with the next).
	turn Group
	// breakpoints counts the cache_control members the message sets;
	// cacheTTL is the ttl of each block's breakpoint ("" for none; nil
	// when the message sets none); blockHashes are its blocks' hashes in
	// the prompt cache's keys. Made with the message, like parts.
	breakpoints int
	cacheTTL    []string
	blockHashes []uint64
}

// Group is a run of consecutive same-role messages merged into one turn.
type Group struct {
	Role   string
	First  int // index of the first message of the run in messages[]
	Blocks []Block
	// facts are its message's, or made for a run of several.
	facts *facts
}

// Block is one content block. Msg and Index locate it in the request, so
// errors point at the block the client sent even after merging.
type Block struct {
	Msg, Index int
	Type       string
	Text       string // text, thinking
	Signature  string // thinking; the data of redacted_thinking
	// tool_use
	ID    string
	Name  string
	Input json.RawMessage
	// tool_result
	ToolUseID      string
	IsError        json.RawMessage // as sent; absent = nil
	ResultText     string          // content given as a string
	ResultItems    []ResultItem    // content given as a list
	ResultHasItems bool
	// image, document
	Media conv.Content
	// tool_addition: the tool a tool_definition declares inline (nil for
	// a reference); tool_addition and tool_removal: the name referenced
	// or defined (in Name).
	Added *conv.Tool
}

// ResultItem is one block of a tool_result's content list.
type ResultItem struct {
	Type    string // "" when the item has no type
	HasTag  bool
	Content conv.Content
}

// blockTags are the content block types the Messages API accepts in
// messages[].content (generated from the SDK's union).
var blockTags = wContentBlockUnionTags

func tagList(tags []string) string {
	s := append([]string(nil), tags...)
	sort.Strings(s)
	return "'" + strings.Join(s, "', '") + "'"
}

// tagError is pydantic's discriminated-union message with its path.
func tagError(path, tag string, expected []string) string {
	return path + ": " + tagMismatch(tag, expected)
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// fromWire checks what decoding cannot (required members, the role enum)
// and maps the wire request to the rules' Request.
func fromWire(w *wireRequest, size int, reused []*Message) (*Request, []Message, *wire.APIError) {
	req := &Request{BodySize: size, ToolChoice: conv.ToolChoice{Mode: conv.ToolChoiceAuto},
		Model: str(w.Model), HasModel: w.Model != nil, HasMaxTokens: w.MaxTokens != nil, HasMessages: w.Messages != nil || len(reused) > 0}
	if w.MaxTokens != nil {
		req.MaxTokens = *w.MaxTokens
	}
	if w.Stream != nil {
		req.Stream = *w.Stream
	}
	req.StopSequences = w.StopSequences
	if w.System.String != nil {
		req.System = *w.System.String
	} else if len(w.System.Blocks) > 0 {
		texts := make([]string, len(w.System.Blocks))
		for i, b := range w.System.Blocks {
			if b.Text == nil {
				return nil, nil, invalidRule(RuleRequiredFields, fmt.Sprintf("system.%d.text: %s", i, required))
			}
			texts[i] = *b.Text
		}
		req.System = strings.Join(texts, "\n")
	}
	if n := len(reused) + len(w.Messages); n > 0 {
		req.Messages = make([]*Message, 0, n)
	}
	req.Messages = append(req.Messages, reused...)
	// The blocks of every message in one array, each message's a window
	// of it whose capacity ends where the next begins.
	slab := make([]Block, 0, blockCount(w.Messages))
	var fresh []Message
	if req.Messages != nil {
		fresh = make([]Message, 0, len(w.Messages))
	}
	for i := range w.Messages {
		msg, err := fromMessage(len(reused)+i, &w.Messages[i], slab[len(slab):len(slab):cap(slab)])
		if err != nil {
			return nil, nil, err
		}
		if n := len(msg.Blocks); n > 0 {
			msg.Blocks = msg.Blocks[:n:n] // a merge appending to it copies
			slab = slab[:min(len(slab)+n, cap(slab))]
		}
		fresh = append(fresh, msg)
	}
	for i := range fresh {
		req.Messages = append(req.Messages, &fresh[i])
	}
	derive(req.Messages, len(reused))
	if err := req.fromTools(w.Tools); err != nil {
		return nil, nil, err
	}
	// A tool a tool_addition block defines inline counts as declared
	// (tool_choice may name it).
	var declared map[string]bool
	req.blocksWhere(func(f *facts) bool { return f.added }, func(b *Block) {
		if b.Added == nil {
			return
		}
		if declared == nil {
			declared = make(map[string]bool, len(req.ToolNames))
			for _, n := range req.ToolNames {
				declared[n] = true
			}
		}
		if !declared[b.Name] {
			declared[b.Name] = true
			req.ToolNames = append(req.ToolNames, b.Name)
		}
	})
	if err := req.fromToolChoice(&w.ToolChoice); err != nil {
		return nil, nil, err
	}
	req.Thinking = w.Thinking.Enabled != nil || w.Thinking.Adaptive != nil
	req.AdaptiveThinking = w.Thinking.Adaptive != nil
	if w.Thinking.Enabled != nil {
		if w.Thinking.Enabled.BudgetTokens == nil {
			return nil, nil, invalidRule(RuleRequiredFields, "thinking.enabled.budget_tokens: "+required)
		}
		req.ThinkingBudget = w.Thinking.Enabled.BudgetTokens
	}
	req.Betas = w.AnthropicBeta
	req.caps = capabilityParamsOf(w)
	out, aerr := readOutput(w)
	if aerr != nil {
		return nil, nil, aerr
	}
	req.out = out
	req.compiled = req.readCompiledSchemas()
	req.HasAnthropicVersion = w.AnthropicVersion != nil
	req.Groups = mergeRuns(req.Messages)
	return req, fresh, nil
}

// blockCount is how many blocks the messages map to.
func blockCount(msgs []wMessage) int {
	n := 0
	for i := range msgs {
		switch c := &msgs[i].Content; {
		case c.String != nil && *c.String != "":
			n++
		case c.String == nil:
			n += len(c.Blocks)
		}
	}
	return n
}

// fromMessage maps message i, its blocks appended to into (whose
// capacity holds them).
func fromMessage(i int, m *wMessage, into []Block) (Message, *wire.APIError) {
	path := func() string { return "messages." + strconv.Itoa(i) }
	msg := Message{Index: i, Role: str(m.Role), ClearAt: str(m.ClearAt)}
	// A system message (anthropic-sdk-go v2 SystemMessageParam) may carry
	// only an output_config, so its content is optional.
	system := msg.Role == "system"
	switch {
	case m.Role == nil:
		return msg, invalidRule(RuleRequiredFields, path()+".role: "+required)
	case msg.Role != "user" && msg.Role != "assistant" && !system:
		return msg, invalidRule(RuleFieldTypes, path()+".role: Input should be 'user', 'assistant' or 'system'")
	case m.Content.String == nil && m.Content.Blocks == nil:
		if system {
			msg.Empty = m.OutputConfig == nil
			return msg, nil
		}
		return msg, invalidRule(RuleRequiredFields, path()+".content: "+required)
	case m.Content.String != nil:
		msg.Empty = *m.Content.String == "" && !(system && m.OutputConfig != nil)
		if *m.Content.String != "" {
			msg.Blocks = append(into, Block{Msg: i, Index: 0, Type: "text", Text: *m.Content.String})
		}
		return msg, nil
	}
	msg.Empty = len(m.Content.Blocks) == 0 && !(system && m.OutputConfig != nil)
	if !msg.Empty {
		msg.Blocks = into
	}
	for j := range m.Content.Blocks {
		b, err := fromBlock(i, j, &m.Content.Blocks[j])
		if err != nil {
			return msg, err
		}
		msg.Blocks = append(msg.Blocks, b)
	}
	return msg, nil
}

// fromBlock maps block j of message i, checking the members the rules
// read are present.
func fromBlock(i, j int, u *wContentBlockUnion) (Block, *wire.APIError) {
	b := Block{Msg: i, Index: j, Type: u.Tag}
	need := func(name string, p *string) *wire.APIError {
		if p == nil {
			return invalidRule(RuleRequiredFields, fmt.Sprintf("messages.%d.content.%d.%s.%s: %s", i, j, b.Type, name, required))
		}
		return nil
	}
	var err *wire.APIError
	switch {
	case u.Text != nil:
		b.Text, err = str(u.Text.Text), need("text", u.Text.Text)
	case u.Thinking != nil:
		if err = need("thinking", u.Thinking.Thinking); err == nil {
			err = need("signature", u.Thinking.Signature)
		}
		b.Text, b.Signature = str(u.Thinking.Thinking), str(u.Thinking.Signature)
	case u.RedactedThinking != nil:
		b.Signature, err = str(u.RedactedThinking.Data), need("data", u.RedactedThinking.Data)
	case u.ToolUse != nil:
		t := u.ToolUse
		if err = need("id", t.Id); err == nil {
			if err = need("name", t.Name); err == nil && t.Input == nil {
				err = invalidRule(RuleRequiredFields, fmt.Sprintf("messages.%d.content.%d.tool_use.input: %s", i, j, required))
			}
		}
		b.ID, b.Name, b.Input = str(t.Id), str(t.Name), json.RawMessage(t.Input)
	case u.ToolResult != nil:
		t := u.ToolResult
		err = need("tool_use_id", t.ToolUseId)
		b.ToolUseID, b.IsError = str(t.ToolUseId), json.RawMessage(t.IsError)
		b.ResultText = str(t.Content.String)
		b.ResultHasItems = t.Content.Items != nil
		for _, it := range t.Content.Items {
			b.ResultItems = append(b.ResultItems, ResultItem{Type: it.Tag, HasTag: it.HasTag, Content: resultContent(&it.Block)})
		}
	case u.ToolAddition != nil:
		b.Name, b.Added = toolChange(&u.ToolAddition.Tool)
	case u.ToolRemoval != nil:
		b.Name = toolRemoved(&u.ToolRemoval.Tool)
	case u.Image != nil:
		b.Media = imageContent(&u.Image.Source)
		if u.Image.Source.Tag == "" {
			err = invalidRule(RuleRequiredFields, fmt.Sprintf("messages.%d.content.%d.image.source: %s", i, j, required))
		}
	case u.Document != nil:
		b.Media = documentContent(&u.Document.Source)
		if u.Document.Source.Tag == "" {
			err = invalidRule(RuleRequiredFields, fmt.Sprintf("messages.%d.content.%d.document.source: %s", i, j, required))
		}
	}
	return b, err
}

// toolChange reads the tool a tool_addition block offers from here on:
// the name it references, or the custom tool it defines inline.
func toolChange(u *wRequestToolAdditionBlockToolUnion) (string, *conv.Tool) {
	switch {
	case u.ToolReference != nil:
		return str(u.ToolReference.Name), nil
	case u.MCPToolReference != nil:
		return str(u.MCPToolReference.Name), nil
	case u.ToolDefinition != nil:
		d := &u.ToolDefinition.Definition
		if t := d.Tool; t != nil && t.Name != nil {
			tool := &conv.Tool{Name: *t.Name, Description: str(t.Description)}
			if t.InputSchema.Kind() == '{' {
				tool.Parameters = json.RawMessage(t.InputSchema)
			}
			if t.Strict != nil {
				tool.Strict = *t.Strict
			}
			return tool.Name, tool
		}
		return serverToolName(d), nil
	}
	return "", nil
}

// toolRemoved is the name a tool_removal block withdraws.
func toolRemoved(u *wRequestToolRemovalBlockToolUnion) string {
	switch {
	case u.ToolReference != nil:
		return str(u.ToolReference.Name)
	case u.MCPToolReference != nil:
		return str(u.MCPToolReference.Name)
	}
	return ""
}

func (req *Request) fromTools(tools []wToolUnion) *wire.APIError {
	for i := range tools {
		u := &tools[i]
		if u.Tool == nil {
			// A server tool (web_search_…, bash_…): the API runs it, the
			// client declares no schema.
			req.ToolNames = append(req.ToolNames, serverToolName(u))
			continue
		}
		t := u.Tool
		path := "tools." + strconv.Itoa(i) + ".custom."
		if t.Name == nil {
			return invalidRule(RuleRequiredFields, path+"name: "+required)
		}
		if t.InputSchema == nil {
			return invalidRule(RuleRequiredFields, path+"input_schema: "+required)
		}
		if t.InputSchema.Kind() != '{' {
			return invalidRule(RuleFieldTypes, path+"input_schema: "+notObject)
		}
		tool := conv.Tool{Name: *t.Name, Description: str(t.Description), Parameters: json.RawMessage(t.InputSchema)}
		if t.Strict != nil {
			tool.Strict = *t.Strict
		}
		req.ToolNames = append(req.ToolNames, tool.Name)
		req.Tools = append(req.Tools, tool)
		req.customIndex = append(req.customIndex, i)
	}
	return nil
}

// serverToolName reads the name member every server tool variant has
// (by reflection: there are dozens of variants, and a tool list is short).
func serverToolName(u *wToolUnion) string {
	v := reflect.ValueOf(u).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() {
			continue
		}
		if name := f.Elem().FieldByName("Name"); name.IsValid() && name.Kind() == reflect.Pointer && !name.IsNil() {
			return name.Elem().String()
		}
	}
	return ""
}

func (req *Request) fromToolChoice(u *wToolChoiceUnion) *wire.APIError {
	req.ToolChoiceType = u.Tag
	var disableParallel *bool
	switch {
	case u.Auto != nil:
		disableParallel = u.Auto.DisableParallelToolUse
	case u.Any != nil:
		req.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceRequired}
		disableParallel = u.Any.DisableParallelToolUse
	case u.None != nil:
		req.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceNone}
	case u.Tool != nil:
		if u.Tool.Name == nil {
			return invalidRule(RuleRequiredFields, "tool_choice.tool.name: "+required)
		}
		req.ToolChoice = conv.ToolChoice{Mode: conv.ToolChoiceFunction, Name: *u.Tool.Name}
		disableParallel = u.Tool.DisableParallelToolUse
	}
	req.SerialCalls = disableParallel != nil && *disableParallel
	return nil
}

// mergeRuns combines consecutive same-role messages into one turn, as the
// API does before validating tool use.
func mergeRuns(msgs []*Message) []*Group {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]*Group, 0, len(msgs))
	merged := false
	for _, m := range msgs {
		if m.Role == "system" {
			// Instructions between turns: they neither take a turn nor
			// split one (a tool_use and its tool_result may sit around
			// them).
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			if out[n-1].facts != nil {
				// Still a message's own turn: merged in a copy. Its blocks'
				// capacity cap makes the append copy them too.
				g := *out[n-1]
				out[n-1] = &g
			}
			out[n-1].Blocks = append(out[n-1].Blocks, m.Blocks...)
			out[n-1].facts, merged = nil, true
			continue
		}
		out = append(out, &m.turn)
	}
	if merged {
		for i := range out {
			if out[i].facts == nil {
				f := factsOf(out[i].Blocks)
				out[i].facts = &f
			}
		}
	}
	return out
}

// conversation maps the merged turns to the neutral model: each turn
// the parts of its messages (a message's own when it is the only one).
func (r *Request) conversation() *conv.Conversation {
	system, tools := r.instructions()
	c := &conv.Conversation{
		Dialect: conv.Anthropic, Model: r.Model, System: system,
		Tools: tools, ToolChoice: r.ToolChoice, Stream: r.Stream,
		Controls: conv.Controls{MaxOutputTokens: max(r.MaxTokens, 0), StopSequences: r.StopSequences, SerialCalls: r.SerialCalls,
			Output: r.output()},
	}
	if len(r.Groups) > 0 {
		c.Turns = make([]conv.Turn, 0, len(r.Groups))
	}
	for _, m := range r.Messages {
		if m.Role == "system" {
			continue // not a turn, as in mergeRuns
		}
		if n := len(c.Turns); n > 0 && c.Turns[n-1].Role == conv.Role(m.Role) {
			// A message's parts are clipped: appending copies them.
			c.Turns[n-1].Parts = append(c.Turns[n-1].Parts, m.parts...)
			continue
		}
		c.Turns = append(c.Turns, conv.Turn{Role: conv.Role(m.Role), Parts: m.parts})
	}
	return c
}

// derive makes the parts, size and facts of msgs[from:], the messages
// just decoded (those before them carry theirs already). The parts of
// every message share one array, each message's clipped to its own
// window.
func derive(msgs []*Message, from int) {
	n, blocks := 0, 0
	for i := from; i < len(msgs); i++ {
		if msgs[i].Role != "system" {
			n += len(msgs[i].Blocks)
		}
		blocks += len(msgs[i].Blocks)
	}
	var slab []conv.Part
	if n > 0 {
		slab = make([]conv.Part, 0, n)
	}
	hashes := make([]uint64, blocks)
	for i := from; i < len(msgs); i++ {
		m := msgs[i]
		m.facts = factsOf(m.Blocks)
		m.turn = Group{Role: m.Role, First: m.Index, Blocks: m.Blocks[:len(m.Blocks):len(m.Blocks)], facts: &m.facts}
		if len(m.Blocks) == 0 {
			m.turn.Blocks = nil
		}
		for j := range m.Blocks {
			m.size += blockSize(&m.Blocks[j])
		}
		if k := len(m.Blocks); k > 0 {
			m.blockHashes, hashes = hashes[:k:k], hashes[k:]
			hashBlocks(m, m.blockHashes)
		}
		if m.Role == "system" {
			continue
		}
		start := len(slab)
		for j := range m.Blocks {
			if p, ok := partOf(msgs, i, j); ok {
				slab = append(slab, p)
			}
		}
		if len(slab) > start {
			m.parts = slab[start:len(slab):len(slab)]
		}
	}
}

// partOf maps block j of message i to the conversation's part, if the
// conversation has one for its type.
func partOf(msgs []*Message, i, j int) (conv.Part, bool) {
	b := &msgs[i].Blocks[j]
	switch b.Type {
	case "text":
		return conv.Part{Kind: conv.KindText, Text: b.Text}, true
	case "thinking":
		return conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{Summary: b.Text, EncryptedContent: b.Signature}}, true
	case "redacted_thinking":
		return conv.Part{Kind: conv.KindReasoning, Reasoning: &conv.Reasoning{EncryptedContent: b.Signature, Redacted: true}}, true
	case "image", "document":
		media := b.Media
		return conv.Part{Kind: conv.KindMedia, Media: &media}, true
	case "tool_use":
		// A non-object input is a rule violation and keeps {}; null
		// gives nil.
		return conv.Part{Kind: conv.KindCall, Call: &conv.Call{ID: b.ID, Name: b.Name, Arguments: arguments(b.Input)}}, true
	case "tool_result":
		res := &conv.Result{CallID: b.ToolUseID, Name: callName(msgs, i, j, b.ToolUseID), IsError: strings.TrimSpace(string(b.IsError)) == "true"}
		if b.ResultHasItems {
			for _, it := range b.ResultItems {
				res.Content = append(res.Content, it.Content)
			}
		} else if b.ResultText != "" {
			res.Content = []conv.Content{{Type: conv.ContentText, Text: b.ResultText}}
		}
		return conv.Part{Kind: conv.KindResult, Result: res}, true
	}
	return conv.Part{}, false
}

// instructions are what the model is told besides the turns: the system
// prompt followed by the text of the system messages it still sees, and
// the tools as the system messages' tool_addition and tool_removal blocks
// leave them (anthropic-sdk-go v2.15.0 message.go SystemMessageParam,
// betamessage.go BetaSystemMessageParam's clear_at and
// BetaRequestToolAdditionBlockParam).
func (r *Request) instructions() (string, []conv.Tool) {
	lastUser := -1
	changes := false
	for i, m := range r.Messages {
		switch m.Role {
		case "user":
			lastUser = i
		case "system":
			changes = true
		}
	}
	if !changes {
		return r.System, r.Tools
	}
	var system strings.Builder
	system.WriteString(r.System)
	// The tools in order, a removed one nil; at holds where each name is
	// (r.Tools is the request's own: copied, not edited).
	tools := make([]*conv.Tool, len(r.Tools))
	at := make(map[string]int, len(r.Tools))
	for i := range r.Tools {
		tools[i] = &r.Tools[i]
		at[r.Tools[i].Name] = i
	}
	for i, m := range r.Messages {
		if m.Role != "system" {
			continue
		}
		shown := m.ClearAt != "next_user_message" || lastUser < i
		for _, b := range m.Blocks {
			switch {
			case b.Type == "text" && shown:
				if system.Len() > 0 {
					system.WriteByte('\n')
				}
				system.WriteString(b.Text)
			case b.Type == "tool_addition" && b.Added != nil, b.Type == "tool_removal":
				if k, ok := at[b.Name]; ok {
					tools[k] = nil
					delete(at, b.Name)
				}
				if b.Added != nil {
					at[b.Name] = len(tools)
					tools = append(tools, b.Added)
				}
			}
		}
	}
	out := make([]conv.Tool, 0, len(tools))
	for _, t := range tools {
		if t != nil {
			out = append(out, *t)
		}
	}
	return system.String(), out
}

// callName is the name of the last tool_use with id before block j of
// message i in the turns (system messages take none), as results are
// named ("" when there is none). A call is looked for backwards: it is
// nearly always in the message just before.
func callName(msgs []*Message, i, j int, id string) string {
	for ; i >= 0; i-- {
		if msgs[i].Role == "system" {
			j = -1
			continue
		}
		blocks := msgs[i].Blocks
		if j < 0 || j > len(blocks) {
			j = len(blocks)
		}
		for k := j - 1; k >= 0; k-- {
			if blocks[k].Type == "tool_use" && blocks[k].ID == id {
				return blocks[k].Name
			}
		}
		j = -1
	}
	return ""
}

// arguments decodes a tool_use input as the model sees it.
func arguments(input json.RawMessage) map[string]any {
	t := bytes.TrimSpace(input)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	if t[0] != '{' {
		return map[string]any{}
	}
	var m map[string]any
	// The input was read whole by the strict decoder: decoding it again
	// need not repeat its checks.
	if jsonv2.Unmarshal(input, &m, wirejson.Again(jsonv2.RejectUnknownMembers(false))) != nil {
		return map[string]any{}
	}
	return m
}

func imageContent(u *wImageBlockSourceUnion) conv.Content {
	out := conv.Content{Type: conv.ContentImage}
	switch {
	case u.Base64 != nil:
		out.MIMEType, out.Data = str(u.Base64.MediaType), str(u.Base64.Data)
	case u.URL != nil:
		out.URL = str(u.URL.Url)
	case u.File != nil:
		out.URL = "file:" + str(u.File.FileId)
	}
	return out
}

func documentContent(u *wDocumentBlockSourceUnion) conv.Content {
	out := conv.Content{Type: conv.ContentDocument}
	switch {
	case u.Base64 != nil:
		out.MIMEType, out.Data = str(u.Base64.MediaType), str(u.Base64.Data)
	case u.Text != nil:
		out.Text, out.MIMEType = str(u.Text.Data), "text/plain"
	case u.URL != nil:
		out.URL = str(u.URL.Url)
	case u.File != nil:
		out.URL = "file:" + str(u.File.FileId)
	case u.Content != nil:
		out.Text, out.MIMEType = str(u.Content.Content.String), "text/plain"
	}
	return out
}

func resultContent(u *wToolResultBlockContentUnion) conv.Content {
	switch {
	case u.Text != nil:
		return conv.Content{Type: conv.ContentText, Text: str(u.Text.Text)}
	case u.Image != nil:
		return imageContent(&u.Image.Source)
	case u.Document != nil:
		return documentContent(&u.Document.Source)
	case u.SearchResult != nil:
		parts := make([]string, len(u.SearchResult.Content))
		for i, c := range u.SearchResult.Content {
			parts[i] = str(c.Text)
		}
		return conv.Content{Type: conv.ContentText, Text: strings.Join(parts, "\n"), DisplayName: str(u.SearchResult.Title)}
	}
	return conv.Content{Type: conv.ContentText}
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// promptSize is the size of what the model reads (system, messages, tool
// declarations), so the token estimate of a count_tokens request and of
// the same prompt sent to /v1/messages agree.
func (r *Request) promptSize() int {
	n := len(r.System)
	for _, m := range r.Messages {
		n += m.size
	}
	for i := range r.Tools {
		n += toolSize(&r.Tools[i])
	}
	return n
}

var cacheControlType = reflect.TypeFor[*wCacheControlEphemeral]()

// countCacheControl counts the cache_control members set anywhere in a
// decoded request (they sit on dozens of block and tool types).
func countCacheControl(v reflect.Value) int {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		if v.Type() == cacheControlType {
			return 1
		}
		return countCacheControl(v.Elem())
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // jsontext.Value: free-form
			return 0
		}
		n := 0
		for i := range v.Len() {
			n += countCacheControl(v.Index(i))
		}
		return n
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += countCacheControl(v.Field(i))
		}
		return n
	}
	return 0
}
