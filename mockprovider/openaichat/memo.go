package openaichat

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/toolwire/toolwire/mockprovider/wirejson"
)

// A tool loop sends the same tool declarations and re-sends its whole
// history with every request: all but the newest messages repeat byte for
// byte. Both are remembered by their bytes, decoded and read into the
// checks' view once (wirejson.Memo).
//
// A remembered value is shared by every request that sends its bytes, at
// once and on any goroutine: everything downstream only reads it. The
// views' slices (Message.Parts, Message.ToolCalls, Request.Tools) and the
// replayed arguments (ToolCall.Arguments, which may be a map or a slice)
// are never written: the rules, toConversation (parseArguments copies an
// object before normalizing its numbers), the encoders and the prompt
// cache read them and build their own values.
var (
	toolsMemo    wirejson.Memo[toolList]
	messagesMemo wirejson.Memo[message]
	requestMemos = wirejson.NewMemos(&toolsMemo, &messagesMemo)
)

// message is one entry of messages: the wire struct and what
// readMessage read from it, behind one pointer (the decoder grows the
// list of messages element by element).
type message struct {
	Read *messageRead
}

// messageRead is a message's wire struct, its view for the checks (Index
// 0: the request sets it) and the members its variants do not define, as
// paths relative to the message.
type messageRead struct {
	// Wire is decoded by UnmarshalJSONFrom, never by the library; the tag
	// leads drift_test's walk of the wire structs to it.
	Wire   chatMessage `json:",inline"`
	view   Message
	extras [][]string
}

func (m *message) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	read := &messageRead{}
	if err := json.UnmarshalDecode(dec, &read.Wire); err != nil {
		return err
	}
	read.view, read.extras = readMessage(&read.Wire)
	m.Read = read
	return nil
}

// toolList is the tools member: the wire structs and what readTools read
// from them.
type toolList struct {
	Wire []chatTool
	read *toolsRead
}

// toolsRead is the tools' view for the checks and the paths of the
// members their types do not define.
type toolsRead struct {
	tools  []Tool
	extras [][]string
}

func (l *toolList) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if err := json.UnmarshalDecode(dec, &l.Wire); err != nil {
		return err
	}
	l.read = readTools(l.Wire)
	return nil
}
