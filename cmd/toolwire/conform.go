package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolwire/toolwire/suite"
	"github.com/toolwire/toolwire/suite/task"
)

// newConformCommand is `toolwire conform`: run a driver through every
// scenario × dialect × stream mode against the in-process mock, judge each
// run, write the reports. Exit 0 conformant, 1 failures, 2 harness error.
func newConformCommand() *cobra.Command {
	var o suite.ConformOptions
	var optionsFile, dialects, features, scenarios, initLang, initDir string
	cmd := &cobra.Command{
		Use:   "conform",
		Short: "Run the conformance suite against a driver (an adapter under test)",
		Long: `Run the conformance suite: the mock provider starts in process, the driver runs
every scenario on every dialect, streamed and not, and each run is judged by the
request rules and the scenario checks. Reports (junit.xml, report.json,
conformance-report.yaml, summary.md, report.html) go to --report-dir.

Driver contract (--driver CMD): the command runs with TOOLWIRE_TASK (task JSON
path), TOOLWIRE_SCENARIO, TOOLWIRE_DIALECT, TOOLWIRE_STREAM (0/1),
OPENAI_BASE_URL, OPENAI_API_KEY, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY,
GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY, GOOGLE_API_KEY, and prints
{"final_text": "..."} as its last stdout line. --driver-url URL gets the task
JSON POSTed (with the variables in its "env" field) and answers the same JSON.

The driver declares the tools, sends the prompt, answers every call with the
task's canned result converted to the dialect's native result, and sends it
back until the model answers in text. The task JSON's members:

` + task.FieldsHelp() + `
What the suite judges, beyond the APIs' own rules:
  - Tool errors (isError, an undeclared tool, arguments that do not parse) go
    back as error results: Anthropic is_error: true, Gemini
    functionResponse.response {"error": ...}; the OpenAI APIs have no flag,
    so the output carries the error's text in any wrapping ("Error: ...",
    "An error occurred while ..."). Arguments that break the schema may be
    answered by the library's own validation error instead of the tool's.
  - A turn the output limit cut (Chat finish_reason "length"; Responses
    status "incomplete", streamed as a response.incomplete event; Anthropic
    stop_reason "max_tokens"; Gemini finishReason "MAX_TOKENS", the cut call
    left out) is never run: ask the same turn again with a larger limit (the
    same limit is cut again; the reference driver doubles it and keeps the
    larger one for the later turns, which the suite does not require). With
    Anthropic thinking, max_tokens = budget_tokens + max_output_tokens.
  - A forced tool_choice is sent on the first request and dropped once its
    call is answered: left out, or auto (Anthropic {"type": "auto"}, Gemini
    mode AUTO). none is "none" / {"type": "none"} / mode NONE.
  - strict tools: Chat function.strict, Responses and Anthropic strict: true;
    Gemini has no flag (mode VALIDATED is accepted, not required).
See the README's "The driver contract" for every detail.

--format-driver CMD starts one long-running process and exchanges JSON lines:
{"op":"format_result","dialect","call":{name,call_id,arguments},"result":<MCP
CallToolResult>,"model"} is answered with the dialect's native result (tool
message, function_call_output item, user message with tool_result blocks, user
content with functionResponse parts); {"op":"normalize_calls","dialect",
"response":<raw provider response>} with {"calls":[{name,call_id,arguments}]}.
--tool-url URL invokes every operation of the RAP conformance toolset (echo,
fail, edit, subscribe, slow) from an in-process RAP runtime and judges the
callbacks. In these two modes --timeout bounds one request (format driver) or
is the RAP runtime's deadline for a result (tool), default 10s.

Exit status: 0 conformant, 1 conformance failures, 2 harness or configuration error.`,
		Example: `  toolwire conform --driver "python my_adapter_driver.py" --dialects anthropic,gemini
  toolwire conform --driver toolwire-refdriver --features streaming,images --strict
  toolwire conform --reference --reference-break swapped-ids --scenario 'parallel-*'
  toolwire conform --format-driver "toolwire-formatdriver --break omit-is-error"
  toolwire conform --tool-url http://127.0.0.1:9300
  toolwire conform --init-driver python --init-dir my-driver`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("init-driver") {
				// Writing a skeleton runs nothing: no options file, no mock.
				if err := initDriver(initLang, initDir, cmd.OutOrStdout()); err != nil {
					return err
				}
				return nil
			}
			if optionsFile != "" {
				file, err := suite.LoadConformOptions(optionsFile)
				if err != nil {
					return err
				}
				merge(cmd, &o, file)
			}
			if cmd.Flags().Changed("dialects") || o.Dialects == nil {
				o.Dialects = splitList(dialects)
			}
			if cmd.Flags().Changed("features") {
				o.Features = splitList(features)
			}
			if cmd.Flags().Changed("scenario") {
				o.Scenarios = splitList(scenarios)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if code := suite.Conform(ctx, o, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
				return exitError{code: code}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Driver, "driver", "", "driver command (run with sh -c), one process per scenario run")
	f.StringVar(&o.DriverURL, "driver-url", "", "driver server URL (the task is POSTed to it)")
	f.StringVar(&o.FormatDriver, "format-driver", "", "format driver command (JSON lines: format_result, normalize_calls)")
	f.StringVar(&o.ToolURL, "tool-url", "", "RAP tool URL to judge")
	f.BoolVar(&o.Reference, "reference", false, "run the reference driver (toolwire-refdriver next to this binary, or on PATH)")
	f.StringVar(&o.ReferenceBreak, "reference-break", "", "make the reference driver commit one mistake (see toolwire-refdriver --list-breaks)")
	f.StringVar(&dialects, "dialects", "", "dialects to test, comma-separated (default openai-chat,openai-responses,anthropic,gemini; bedrock is run only when named)")
	f.StringVar(&features, "features", "", "features the implementation supports, comma-separated (default all; e.g. streaming,images,documents,reasoning,parallel,structured)")
	f.StringVar(&scenarios, "scenario", "", "scenario names or globs, comma-separated (default all)")
	f.StringSliceVar(&o.ScenarioDirs, "scenarios-dir", nil, "extra scenario directories")
	f.StringVar(&o.ReportDir, "report-dir", "reports/out", "where to write the reports")
	f.StringVar(&o.Baseline, "baseline", "", "expected-failures YAML (listed failures do not fail the run; stale entries do)")
	f.BoolVar(&o.Strict, "strict", false, "SHOULD warnings fail the run")
	f.IntVar(&o.Parallel, "parallel", runtime.NumCPU(), "driver runs at once (default: the number of CPUs)")
	f.StringVar(&o.Shard, "shard", "", `run only part i of n of the plan ("2/4"); join the parts' report.json with "toolwire report merge"`)
	f.DurationVar(&o.Timeout, "timeout", 0, "limit per driver run (default 60s)")
	f.StringVar(&o.LabelFilter, "label-filter", "", `Ginkgo label filter, e.g. "level:MUST && dialect:gemini"`)
	f.BoolVar(&o.NoStream, "no-stream", false, "skip the streamed runs")
	f.BoolVar(&o.GinkgoOutput, "ginkgo-output", false, "also print Ginkgo's own spec-by-spec report")
	f.StringVar(&o.Implementation.Name, "name", "", "implementation name for the reports")
	f.StringVar(&o.Implementation.Version, "impl-version", "", "implementation version for the reports")
	f.StringVar(&optionsFile, "options", "", "options YAML (keys as the flags; flags win)")
	f.StringVar(&initLang, "init-driver", "", "write a minimal driver (python, node or go) into --init-dir, print how to run it, and exit")
	f.StringVar(&initDir, "init-dir", ".", "directory --init-driver writes into")
	return cmd
}

// merge fills options the command line did not set from the file.
func merge(cmd *cobra.Command, o *suite.ConformOptions, file suite.ConformOptions) {
	changed := cmd.Flags().Changed
	str := func(flag string, dst *string, v string) {
		if !changed(flag) && v != "" {
			*dst = v
		}
	}
	str("driver", &o.Driver, file.Driver)
	str("driver-url", &o.DriverURL, file.DriverURL)
	str("format-driver", &o.FormatDriver, file.FormatDriver)
	str("tool-url", &o.ToolURL, file.ToolURL)
	str("reference-break", &o.ReferenceBreak, file.ReferenceBreak)
	str("report-dir", &o.ReportDir, file.ReportDir)
	str("baseline", &o.Baseline, file.Baseline)
	str("label-filter", &o.LabelFilter, file.LabelFilter)
	str("shard", &o.Shard, file.Shard)
	str("name", &o.Implementation.Name, file.Implementation.Name)
	str("impl-version", &o.Implementation.Version, file.Implementation.Version)
	if o.Implementation.URL == "" {
		o.Implementation.URL = file.Implementation.URL
	}
	if !changed("reference") && file.Reference {
		o.Reference = true
	}
	if !changed("strict") && file.Strict {
		o.Strict = true
	}
	if !changed("ginkgo-output") && file.GinkgoOutput {
		o.GinkgoOutput = true
	}
	if !changed("no-stream") && file.NoStream {
		o.NoStream = true
	}
	if !changed("parallel") && file.Parallel > 0 {
		o.Parallel = file.Parallel
	}
	if !changed("timeout") && file.Timeout > 0 {
		o.Timeout = file.Timeout
	}
	if !changed("scenarios-dir") && len(file.ScenarioDirs) > 0 {
		o.ScenarioDirs = file.ScenarioDirs
	}
	if !changed("dialects") && len(file.Dialects) > 0 {
		o.Dialects = file.Dialects
	}
	if !changed("features") && file.Features != nil {
		o.Features = file.Features
	}
	if !changed("scenario") && len(file.Scenarios) > 0 {
		o.Scenarios = file.Scenarios
	}
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
