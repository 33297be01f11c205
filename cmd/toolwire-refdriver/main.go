// Command toolwire-refdriver is the conformance suite's reference driver:
// the driver contract implemented on the official Go SDKs. Run it under
// `toolwire conform --driver toolwire-refdriver`; add --break NAME to make
// one classic mistake on purpose (--list-breaks), or --serve ADDR to serve
// the --driver-url contract.
package main

import (
	"os"

	"github.com/toolwire/toolwire/suite/refdriver/dialects"
)

func main() {
	os.Exit(dialects.Main(os.Args[1:], os.Stdout, os.Stderr))
}
