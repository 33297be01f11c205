// Command corpusgen turns vcrpy cassettes from one public repository into
// one JSON Lines file of the corpus (testdata/corpus/<source>.jsonl) and
// records where they came from in sources.json and SOURCES.md.
//
//	go run ./mockprovider/agree/internal/corpusgen -corpus testdata/corpus \
//	  -source simonw-llm -repo https://github.com/simonw/llm -commit SHA \
//	  -licence Apache-2.0 -root DIR FILE...
//
// FILE names are paths inside the repository; each is read from DIR/FILE.
// Kept: every exchange with one of the four generation endpoints on the
// real API's host whose request carries tools, tool calls or tool results,
// every refusal (4xx but credentials and rate limits), and at most -plain
// other successes a dialect, so the corpus is about tool calling but still shows
// plain requests. Identical requests with the same answer are kept once.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolwire/toolwire/mockprovider/agree"
	"github.com/toolwire/toolwire/mockprovider/record"
)

// Source is one repository the corpus draws on.
type Source struct {
	ID         string `json:"id"`
	Repository string `json:"repository"`
	Commit     string `json:"commit"`
	Licence    string `json:"licence"`
	// Exchanges counts what was kept, by dialect.
	Exchanges map[string]int `json:"exchanges"`
	// Files are the cassettes read, with how many exchanges each gave.
	Files []File `json:"files"`
}

// File is one cassette read.
type File struct {
	Path string `json:"path"`
	Kept int    `json:"kept"`
}

func main() {
	var (
		corpusDir = flag.String("corpus", "testdata/corpus", "corpus directory")
		src       Source
		root      string
		plain     int
		maxReq    int
	)
	flag.StringVar(&src.ID, "source", "", "source id (file name of its JSON Lines)")
	flag.StringVar(&src.Repository, "repo", "", "repository URL")
	flag.StringVar(&src.Commit, "commit", "", "commit the files were read at")
	flag.StringVar(&src.Licence, "licence", "", "SPDX licence of the repository")
	flag.StringVar(&root, "root", "", "directory holding the files at their repository paths")
	flag.IntVar(&plain, "plain", 12, "successes without tools to keep at most, per dialect")
	flag.IntVar(&maxReq, "max-request", 256<<10, "requests larger than this are left out (images in base64)")
	flag.Parse()
	if src.ID == "" || src.Repository == "" || src.Commit == "" || src.Licence == "" || root == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "corpusgen: -source, -repo, -commit, -licence, -root and at least one FILE are required")
		os.Exit(2)
	}
	if err := run(*corpusDir, src, root, plain, maxReq, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "corpusgen:", err)
		os.Exit(1)
	}
}

func run(corpusDir string, src Source, root string, plain, maxReq int, files []string) error {
	sort.Strings(files)
	seen := map[string]bool{}
	src.Exchanges = map[string]int{}
	var kept []agree.Exchange
	plainKept := map[string]int{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		exs, _, err := agree.ParseVCR(src.ID+"/"+f, b)
		if err != nil {
			// A cassette in another serializer's form is not ours to read.
			fmt.Fprintf(os.Stderr, "corpusgen: skipping %s: %v\n", f, err)
			continue
		}
		n := 0
		for _, ex := range exs {
			if !ex.FromOfficialHost() || len(ex.Request) > maxReq || !json.Valid([]byte(ex.Request)) || agree.Unjudged(ex) != "" {
				continue
			}
			key := string(ex.Dialect) + " " + ex.Path + " " + record.Canonical(ex.Request) + fmt.Sprint(ex.Status)
			if seen[key] {
				continue
			}
			ok := ex.Status >= 400 || toolRelevant(ex.Request)
			if !ok {
				if plainKept[string(ex.Dialect)] >= plain {
					continue
				}
				plainKept[string(ex.Dialect)]++
			}
			seen[key] = true
			// Upstream filters removed credentials; a second pass catches
			// any they missed. Its hits are named, since a key-shaped run
			// inside base64 (an image, a signature) would be altered too.
			if r := record.Redact(ex.Request, ""); r != ex.Request {
				fmt.Fprintf(os.Stderr, "corpusgen: %s: redacted something key-shaped in the request\n", ex.ID)
				ex.Request = r
			}
			ex.Body = record.Redact(ex.Body, "")
			kept = append(kept, ex)
			src.Exchanges[string(ex.Dialect)]++
			n++
		}
		if n > 0 {
			src.Files = append(src.Files, File{Path: f, Kept: n})
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("no exchange kept from %d files", len(files))
	}
	if err := os.MkdirAll(corpusDir, 0o755); err != nil {
		return err
	}
	var out strings.Builder
	for _, ex := range kept {
		b, err := json.Marshal(ex)
		if err != nil {
			return err
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(corpusDir, src.ID+".jsonl"), []byte(out.String()), 0o644); err != nil {
		return err
	}
	return writeSources(corpusDir, src)
}

// toolRelevant: the request declares tools or carries a call or a result.
func toolRelevant(body string) bool {
	for _, s := range []string{`"tools"`, `"tool_calls"`, `"tool_call_id"`, `"tool_use"`, `"tool_result"`, `"function_call"`,
		`"function_call_output"`, `"functionCall"`, `"functionResponse"`, `"functions"`, `"tool_choice"`, `"toolConfig"`} {
		if strings.Contains(body, s) {
			return true
		}
	}
	return false
}

func writeSources(dir string, src Source) error {
	path := filepath.Join(dir, "sources.json")
	var all []Source
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &all); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	replaced := false
	for i := range all {
		if all[i].ID == src.ID {
			all[i], replaced = src, true
		}
	}
	if !replaced {
		all = append(all, src)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "SOURCES.md"), []byte(sourcesMarkdown(all)), 0o644)
}

func sourcesMarkdown(all []Source) string {
	var b strings.Builder
	b.WriteString("# Where the corpus comes from\n\n")
	b.WriteString("Each `<id>.jsonl` holds exchanges with the real APIs recorded by the open-source project below (its vcrpy cassettes, read at the commit shown), converted by `go run ./mockprovider/agree/internal/corpusgen`. `sources.json` lists every cassette read. Credentials were redacted upstream; the converter drops request headers but the API-version and beta ones, and redacts anything key-shaped again.\n\n")
	b.WriteString("| id | repository | commit | licence | openai-chat | openai-responses | anthropic | gemini |\n|---|---|---|---|---|---|---|---|\n")
	tot := map[string]int{}
	for _, s := range all {
		fmt.Fprintf(&b, "| %s | %s | `%s` | %s |", s.ID, s.Repository, s.Commit[:min(12, len(s.Commit))], s.Licence)
		for _, d := range []string{"openai-chat", "openai-responses", "anthropic", "gemini"} {
			fmt.Fprintf(&b, " %d |", s.Exchanges[d])
			tot[d] += s.Exchanges[d]
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "| **total** | | | | %d | %d | %d | %d |\n", tot["openai-chat"], tot["openai-responses"], tot["anthropic"], tot["gemini"])
	return b.String()
}
