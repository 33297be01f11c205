package formatdriver

import (
	"flag"
	"fmt"
	"io"
)

// Main is the toolwire-formatdriver command on dialects: serve the
// format-driver contract on stdin/stdout until stdin closes.
func Main(dialects []FormatDialect, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("toolwire-formatdriver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brk := fs.String("break", "", "make one deliberate mistake (see --list-breaks)")
	list := fs.Bool("list-breaks", false, "list the break variants and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *list {
		for _, b := range Breaks(dialects) {
			fmt.Fprintf(stdout, "%-28s %s\n", b.Name, b.Summary)
		}
		return 0
	}
	if _, ok := LookupBreak(dialects, *brk); !ok {
		fmt.Fprintf(stderr, "toolwire-formatdriver: unknown break %q (see --list-breaks)\n", *brk)
		return 2
	}
	d := &Driver{Break: Break(*brk), Dialects: dialects}
	if err := d.Serve(stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "toolwire-formatdriver:", err)
		return 1
	}
	return 0
}
