// Package dialects lists the reference driver's dialect drivers and the
// reference format driver's dialect halves, each in its dialect's
// directory, for the commands (cmd/toolwire-refdriver,
// cmd/toolwire-formatdriver) and the in-process driver (suite/reference).
// It links the official SDKs.
package dialects

import (
	"io"

	anthropic "github.com/toolwire/toolwire/mockprovider/anthropic/refdriver"
	bedrock "github.com/toolwire/toolwire/mockprovider/bedrock/refdriver"
	gemini "github.com/toolwire/toolwire/mockprovider/gemini/refdriver"
	openaichat "github.com/toolwire/toolwire/mockprovider/openaichat/refdriver"
	openairesp "github.com/toolwire/toolwire/mockprovider/openairesp/refdriver"
	"github.com/toolwire/toolwire/suite/formatdriver"
	"github.com/toolwire/toolwire/suite/refdriver"
)

// All is the reference driver of every dialect.
func All() []refdriver.Dialect {
	return []refdriver.Dialect{openaichat.Dialect(), openairesp.Dialect(), anthropic.Dialect(), gemini.Dialect(), bedrock.Dialect()}
}

// Driver is the reference driver on every dialect, with the mistake brk
// (refdriver.None: honest).
func Driver(brk refdriver.Break) *refdriver.Driver {
	return &refdriver.Driver{Break: brk, Dialects: All()}
}

// Expectations is the kill matrix, gathered from the dialects' tables.
func Expectations() []refdriver.Expectation { return refdriver.Expectations(All()) }

// Breaks lists the break variants of every dialect, sorted by name.
func Breaks() []refdriver.BreakInfo { return refdriver.Breaks(All()) }

// LookupBreak validates a break name.
func LookupBreak(name string) (refdriver.BreakInfo, bool) { return refdriver.LookupBreak(All(), name) }

// Main is the toolwire-refdriver command.
func Main(args []string, stdout, stderr io.Writer) int {
	return refdriver.Main(All(), args, stdout, stderr)
}

// Formats is the reference format driver's half of every dialect.
func Formats() []formatdriver.FormatDialect {
	return []formatdriver.FormatDialect{openaichat.Format(), openairesp.Format(), anthropic.Format(), gemini.Format(), bedrock.Format()}
}

// FormatMain is the toolwire-formatdriver command.
func FormatMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return formatdriver.Main(Formats(), args, stdin, stdout, stderr)
}
