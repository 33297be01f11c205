package suite

import (
	"fmt"
	"sync"

	"github.com/toolwire/toolwire/mockprovider"
	"github.com/toolwire/toolwire/mockprovider/conv"
	"github.com/toolwire/toolwire/mockprovider/dialect"
)

// What the judge and format mode know per dialect lives in the dialect's
// own directory (judge.go, format.go, resultpath.go there); the suite
// reads it through the built-in dialects, one instance of each.
var judgedDialects = sync.OnceValue(func() map[conv.Dialect]dialect.Judged {
	out := map[conv.Dialect]dialect.Judged{}
	for _, d := range conv.Dialects {
		x, ok := mockprovider.BuiltinDialect(d)
		if !ok {
			panic(fmt.Sprintf("suite: no built-in dialect %s", d))
		}
		j, ok := x.(dialect.Judged)
		if !ok {
			panic(fmt.Sprintf("suite: dialect %s has no judge data", d))
		}
		out[d] = j
	}
	return out
})

// judgeOf is what the scenario judge words and decides for dialect d.
func judgeOf(d conv.Dialect) *dialect.Judge { return judgedDialects()[d].Judge() }

// formatOf is what format mode knows of dialect d.
func formatOf(d conv.Dialect) dialect.Format { return judgedDialects()[d].Format() }

// guide is the dialect's tool-use guide.
func guide(d conv.Dialect) string { return judgeOf(d).Guide }

// callIDFor mints the id a dialect's API would give call i of a case.
func callIDFor(d conv.Dialect, c *formatCase, i int) string {
	return formatOf(d).CallID(c.tag(), i)
}

// defaultDialects are the dialects a run covers when it names none: every
// judged dialect but those a driver must opt in to.
func defaultDialects() []conv.Dialect {
	var out []conv.Dialect
	for _, d := range conv.Dialects {
		if j, ok := judgedDialects()[d]; ok && !j.Judge().OptIn {
			out = append(out, d)
		}
	}
	return out
}
