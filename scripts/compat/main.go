// Command compat writes docs/compatibility.md from the conformance reports
// of the adapter libraries (make libraries): library × dialect × feature,
// and for every failure the rule, the verdict of its investigation (a
// defect of the library, with its source line and issue thread, or a false
// failure of toolwire's own) from examples/libraries/findings.json.
//
//	go run ./scripts/compat [-reports reports/out/libraries] [-findings examples/libraries/findings.json] [-out docs/compatibility.md]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolwire/toolwire/reports"
)

// Finding is what the investigation of failures concluded: a failure whose
// rule and scenario match (path.Match globs) is a defect of the library
// (Verdict "bug") or a false failure of toolwire (Verdict "toolwire").
type Finding struct {
	Library  string   `json:"library"`
	Rule     string   `json:"rule"`
	Scenario string   `json:"scenario"`
	Dialects []string `json:"dialects,omitempty"` // empty: every dialect
	Verdict  string   `json:"verdict"`
	Note     string   `json:"note"`
	Source   string   `json:"source,omitempty"` // the library's source line at the pinned version
	Issue    string   `json:"issue,omitempty"`  // an issue thread about it
}

func (f Finding) matches(lib string, r reports.Result) bool {
	if f.Library != lib || (len(f.Dialects) > 0 && !slices.Contains(f.Dialects, r.Dialect)) {
		return false
	}
	ruleOK, _ := path.Match(f.Rule, r.Rule)
	scenOK, _ := path.Match(f.Scenario, r.Scenario)
	return ruleOK && scenOK
}

// library is one library's run.
type library struct {
	dir  string // its directory under the reports, and under examples/libraries
	run  *reports.Run
	note string // examples/libraries/<dir>/compat-note.md, when there is one
}

func main() {
	reportsDir := flag.String("reports", "reports/out/libraries", "directory of one report directory per library")
	findingsPath := flag.String("findings", "examples/libraries/findings.json", "the investigated failures")
	out := flag.String("out", "docs/compatibility.md", "the page to write")
	flag.Parse()
	if err := run(*reportsDir, *findingsPath, *out); err != nil {
		fmt.Fprintln(os.Stderr, "compat:", err)
		os.Exit(1)
	}
}

func run(reportsDir, findingsPath, out string) error {
	libs, err := loadLibraries(reportsDir)
	if err != nil {
		return err
	}
	findings, err := loadFindings(findingsPath)
	if err != nil {
		return err
	}
	for i := range libs {
		// a library's own word on what its run leaves out, and why
		b, err := os.ReadFile(filepath.Join(filepath.Dir(findingsPath), libs[i].dir, "compat-note.md"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		libs[i].note = strings.TrimSpace(string(b))
	}
	page := render(libs, findings)
	return os.WriteFile(out, page, 0o644)
}

func loadLibraries(dir string) ([]library, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("no library reports (run make libraries): %w", err)
	}
	var libs []library
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name(), "report.json")
		r, err := reports.LoadJSON(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a library whose run broke before writing reports
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		libs = append(libs, library{dir: e.Name(), run: r})
	}
	if len(libs) == 0 {
		return nil, fmt.Errorf("no report.json under %s (run make libraries)", dir)
	}
	return libs, nil
}

func loadFindings(p string) ([]Finding, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var fs []Finding
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fs); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	for i, f := range fs {
		if f.Verdict != "bug" && f.Verdict != "toolwire" && f.Verdict != "unconfirmed" {
			return nil, fmt.Errorf("%s: finding %d (%s %s): verdict %q is not bug, toolwire or unconfirmed", p, i, f.Library, f.Rule, f.Verdict)
		}
	}
	return fs, nil
}

var dialectOrder = []string{"openai-chat", "openai-responses", "anthropic", "gemini"}

// failure is one rule broken in one scenario and dialect, both stream
// modes folded together.
type failure struct {
	rule, level, scenario, dialect, feature string
	modes                                   []string
	message                                 string
	finding                                 *Finding
}

func (f *failure) verdict() string {
	if f.finding == nil {
		return "uninvestigated"
	}
	return f.finding.Verdict
}

func failuresOf(lib library, findings []Finding) []*failure {
	var out []*failure
	index := map[string]*failure{}
	for _, r := range lib.run.Results {
		if r.Outcome != reports.Fail && r.Outcome != reports.Warn {
			continue
		}
		mode := "non-streamed"
		if r.Stream {
			mode = "streamed"
		}
		key := r.Rule + "\x00" + r.Scenario + "\x00" + r.Dialect
		if f := index[key]; f != nil {
			if !slices.Contains(f.modes, mode) {
				f.modes = append(f.modes, mode)
				slices.Sort(f.modes)
			}
			continue
		}
		f := &failure{rule: r.Rule, level: r.Level, scenario: r.Scenario, dialect: r.Dialect, feature: r.Feature, modes: []string{mode}, message: r.Message}
		for i := range findings {
			if findings[i].matches(lib.dir, r) {
				f.finding = &findings[i]
				break
			}
		}
		index[key] = f
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b *failure) int {
		return strings.Compare(a.dialect+a.feature+a.scenario+a.rule, b.dialect+b.feature+b.scenario+b.rule)
	})
	return out
}

// cell is a dialect × feature verdict: "pass", "fail" (a library defect
// or a failure nobody investigated), "pass*" (only false failures of
// toolwire), or "—" (nothing ran).
func cell(lib library, fails []*failure, dialect, feature string) string {
	ran := false
	for _, r := range lib.run.Results {
		if r.Dialect == dialect && r.Feature == feature && judged(r) {
			ran = true
			break
		}
	}
	if !ran {
		return "—"
	}
	falseOnly, unconfirmed := false, false
	for _, f := range fails {
		if f.dialect != dialect || f.feature != feature {
			continue
		}
		if f.verdict() == "unconfirmed" {
			unconfirmed = true
			continue
		}
		if f.verdict() != "toolwire" {
			if f.level == "SHOULD" {
				return "warn"
			}
			return "**fail**"
		}
		falseOnly = true
	}
	if unconfirmed {
		return "unconfirmed"
	}
	if falseOnly {
		return "pass\\*"
	}
	return "pass"
}

// judged reports whether a result says something of the library: a rule
// of an undeclared feature, or one the run gave nothing to judge (a rule
// tagged with a feature no scenario of the run has), is not a pass.
func judged(r reports.Result) bool {
	return r.Outcome != reports.NotSupported && r.Outcome != reports.NotExercised
}

func featuresOf(lib library) []string {
	var fs []string
	for _, r := range lib.run.Results {
		if judged(r) && r.Feature != "" && !slices.Contains(fs, r.Feature) {
			fs = append(fs, r.Feature)
		}
	}
	slices.Sort(fs)
	return fs
}

func ruleLink(rule string) string {
	// docs/rules.md is a table without anchors: a text fragment finds the row
	return fmt.Sprintf("[`%s`](rules.md#:~:text=%s)", rule, url.PathEscape(rule))
}

func render(libs []library, findings []Finding) []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Adapter library compatibility\n\n")
	p("Generated by `make libraries` (`go run ./scripts/compat`) from the conformance reports of the drivers in\n")
	p("[examples/libraries](../examples/libraries): each driver uses its library the way the library's documentation\n")
	p("shows, against `toolwire conform`. Every failure below was investigated: **defects** are the library's (with\n")
	p("the source line at the pinned version and an issue thread where one exists); failures that were toolwire's\n")
	p("own mistake are marked `pass*` in the tables and listed apart.\n\n")
	p("`pass`: every check of the feature passed in both stream modes · `**fail**`: a MUST rule broken · `warn`: only SHOULD\n")
	p("rules broken · `unconfirmed`: a departure from the API's documentation whose real answer is not known · `pass*`:\n")
	p("only false failures of toolwire · `—`: not run (the dialect or the feature is not supported by the library or\n")
	p("the scenario).\n\n")
	for _, lib := range libs {
		impl := lib.run.Implementation
		fails := failuresOf(lib, findings)
		p("## %s", impl.Name)
		if impl.Version != "" {
			p(" (%s)", impl.Version)
		}
		p("\n\nDriver: [examples/libraries/%s](../examples/libraries/%s) · toolwire %s · %s\n\n", lib.dir, lib.dir, lib.run.ToolwireVersion, lib.run.Date.UTC().Format("2006-01-02"))
		if lib.note != "" {
			p("%s\n\n", lib.note)
		}
		dialects := []string{}
		for _, d := range dialectOrder {
			if slices.Contains(lib.run.Dialects, d) {
				dialects = append(dialects, d)
			}
		}
		p("| feature | %s |\n|---|%s\n", strings.Join(dialects, " | "), strings.Repeat("---|", len(dialects)))
		for _, f := range featuresOf(lib) {
			p("| %s |", f)
			for _, d := range dialects {
				p(" %s |", cell(lib, fails, d, f))
			}
			p("\n")
		}
		p("\n")
		var defects, falses, unconfirmed []*failure
		for _, f := range fails {
			switch f.verdict() {
			case "toolwire":
				falses = append(falses, f)
			case "unconfirmed":
				unconfirmed = append(unconfirmed, f)
			default:
				defects = append(defects, f)
			}
		}
		if len(defects) == 0 {
			p("No defects found.\n\n")
		} else {
			p("### Defects\n\n| dialect | scenario | rule | level | modes | what the library does | source | issue |\n|---|---|---|---|---|---|---|---|\n")
			for _, f := range defects {
				note, src, issue := "not investigated yet: "+f.message, "", ""
				if f.finding != nil {
					note, src, issue = f.finding.Note, link(f.finding.Source), link(f.finding.Issue)
				}
				p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", f.dialect, f.scenario, ruleLink(f.rule), f.level, strings.Join(f.modes, ", "), cellText(note), src, issue)
			}
			p("\n")
		}
		if len(unconfirmed) > 0 {
			p("### Unconfirmed (the library departs from the API's documentation; the real API's answer is not known)\n\n| dialect | scenario | rule | modes | what the library does | source |\n|---|---|---|---|---|---|\n")
			for _, f := range unconfirmed {
				p("| %s | %s | %s | %s | %s | %s |\n", f.dialect, f.scenario, ruleLink(f.rule), strings.Join(f.modes, ", "), cellText(f.finding.Note), link(f.finding.Source))
			}
			p("\n")
		}
		if len(falses) > 0 {
			p("### toolwire false failures (not counted against the library)\n\n| dialect | scenario | rule | modes | why the library is right |\n|---|---|---|---|---|\n")
			for _, f := range falses {
				p("| %s | %s | %s | %s | %s |\n", f.dialect, f.scenario, ruleLink(f.rule), strings.Join(f.modes, ", "), cellText(f.finding.Note))
			}
			p("\n")
		}
	}
	return b.Bytes()
}

func link(u string) string {
	if u == "" {
		return ""
	}
	label := strings.TrimPrefix(u, "https://")
	if parsed, err := url.Parse(u); err == nil && parsed.Host == "github.com" {
		parts := strings.Split(strings.Trim(parsed.Path, "/"), "/")
		switch {
		case len(parts) >= 4 && (parts[2] == "issues" || parts[2] == "pull"):
			label = parts[0] + "/" + parts[1] + "#" + parts[3]
		case len(parts) >= 5 && parts[2] == "blob":
			label = path.Base(parsed.Path)
			if parsed.Fragment != "" {
				label += "#" + parsed.Fragment
			}
		}
	}
	return fmt.Sprintf("[%s](%s)", label, u)
}

func cellText(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ").Replace(s)
}
