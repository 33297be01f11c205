package ginkgoexample_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/ginkgoexample"
	"github.com/toolwire/toolwire/suite/task"
)

func TestAdapter(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "adapter")
}

// The adapter's own specs…
var _ = Describe("the adapter", func() {
	It("answers an unknown tool with an error result", func() {
		tk := &task.Task{Tools: []task.Tool{{Name: "get_weather"}}}
		Expect(tk.Answer("no_such_tool", nil).Result.IsError).To(BeTrue())
	})
})

// …and the conformance specs, in one line (narrowed to two scenarios here
// to keep this example quick; drop the option to run them all).
var _ = suite.Specs(suite.Func(ginkgoexample.Drive), func(c *suite.Config) { c.Scenarios = []string{"single-call", "parallel-same-tool"} })
