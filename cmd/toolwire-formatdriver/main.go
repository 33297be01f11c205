// Command toolwire-formatdriver is the reference format driver: the
// format_result and normalize_calls contract of
// `toolwire conform --format-driver toolwire-formatdriver`, JSON lines on
// stdin/stdout. --break NAME makes one classic mistake on purpose
// (--list-breaks).
package main

import (
	"os"

	"github.com/toolwire/toolwire/suite/refdriver/dialects"
)

func main() {
	os.Exit(dialects.FormatMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
