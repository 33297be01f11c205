package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// LoadFS reads every *.yaml / *.yml file under dir of fsys.
func LoadFS(fsys fs.FS, dir string) ([]*Scenario, error) {
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*Scenario
	for _, f := range files {
		b, err := readBounded(f, func() (fs.FileInfo, error) { return fs.Stat(fsys, f) }, func() (io.ReadCloser, error) { return fsys.Open(f) })
		if err != nil {
			return nil, err
		}
		sc, err := Parse(f, b)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}

// LoadDir reads the scenarios of a directory on disk. Errors and
// Scenario.File name the file by its path on disk.
func LoadDir(dir string) ([]*Scenario, error) {
	// os.DirFS would name the directory ".": stat it first, so a wrong
	// path is named as the user gave it.
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	list, err := LoadFS(os.DirFS(dir), ".")
	if le, ok := err.(*LoadError); ok {
		le.File = path.Join(dir, le.File)
	}
	for _, sc := range list {
		sc.File = path.Join(dir, sc.File)
	}
	return list, err
}

// MaxFileSize caps a scenario file: the largest built-in one is a few KiB,
// and generated_text_bytes makes large content without large files. The
// YAML library's node tree costs up to about 100 bytes per byte of a
// dense file (a 4 MiB flow sequence of numbers held 450 MB), so the cap
// is what bounds the memory a file can take before MaxNodes is checked.
const MaxFileSize = 1 << 20

// ReadFile reads a scenario file from disk, refusing what is not a
// regular file (a symlink to one is fine) and what is over MaxFileSize.
func ReadFile(name string) ([]byte, error) {
	return readBounded(name, func() (fs.FileInfo, error) { return os.Stat(name) }, func() (io.ReadCloser, error) { return os.Open(name) })
}

// readBounded reads one file whose size it checks first and bounds while
// reading. The stat comes before the open, which follows symlinks: a
// named pipe would block the open itself, and a device (a link to
// /dev/zero) would never end. Errors are *LoadError naming the file.
func readBounded(name string, stat func() (fs.FileInfo, error), open func() (io.ReadCloser, error)) ([]byte, error) {
	fi, err := stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &LoadError{File: name, Message: fmt.Sprintf("not a regular file (%s)", fileKind(fi.Mode()))}
	}
	if fi.Size() > MaxFileSize {
		return nil, tooLarge(name)
	}
	f, err := open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have changed since the stat: the limit holds whatever
	// is read.
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, tooLarge(name)
	}
	return b, nil
}

func tooLarge(file string) *LoadError {
	return &LoadError{File: file, Message: fmt.Sprintf("larger than %d MiB, the limit for a scenario file", MaxFileSize>>20)}
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}

// LoadError is a scenario file that does not load: where and why.
// Error() reads "FILE:LINE: PATH: MESSAGE", e.g.
// "fixtures/scenarios/x.yaml:12: turns[1].calls[0].name: missing required property".
type LoadError struct {
	File string
	Line int
	// Path is the field in dotted form (turns[1].calls[0].name); empty for
	// errors about the file as a whole.
	Path    string
	Message string
}

// Error reads "FILE:LINE: PATH: MESSAGE"; an error about the file itself
// (Line 0: not a regular file, too large) reads "FILE: MESSAGE".
func (e *LoadError) Error() string {
	if e.Line == 0 && e.Path == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	if e.Path == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Path, e.Message)
}

// Parse decodes one scenario file. The YAML is first validated against the
// embedded JSON Schema (fixtures/scenario.schema.json) and then checked for
// what a schema cannot say (calls to undeclared tools, arguments that break
// their tool's schema, a tool_choice naming no tool). Every error is a
// *LoadError naming the file, the line and the field.
func Parse(file string, data []byte) (*Scenario, error) {
	doc, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	if err := validateSchema(file, doc); err != nil {
		return nil, err
	}
	var sc Scenario
	// The schema already refused unknown fields; decoding strictly as well
	// catches a schema and struct that drifted apart.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		return nil, yamlError(file, err)
	}
	sc.File = file
	if err := checkSemantics(file, doc, &sc); err != nil {
		return nil, err
	}
	expandGenerated(&sc)
	return &sc, nil
}

// Validate reports every problem of one scenario file at once — every
// schema failure, or when the schema holds, every semantic one — each a
// *LoadError with file, line and field. No problems: nil.
func Validate(file string, data []byte) []*LoadError {
	doc, err := parseYAML(file, data)
	if err != nil {
		var le *LoadError
		if errors.As(err, &le) {
			return []*LoadError{le}
		}
		return []*LoadError{{File: file, Line: 1, Message: err.Error()}}
	}
	if probs := schemaProblems(file, doc); len(probs) > 0 {
		return probs
	}
	var sc Scenario
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		var le *LoadError
		if errors.As(yamlError(file, err), &le) {
			return []*LoadError{le}
		}
		return []*LoadError{{File: file, Line: 1, Message: err.Error()}}
	}
	return semanticProblems(file, doc, &sc)
}

// generatedLine is repeated to build generated_text_bytes content: ASCII,
// so byte and character counts agree, numbered so truncation is visible.
const generatedLine = "line %06d: the quick brown fox jumps over the lazy dog.\n"

// GeneratedText returns exactly n bytes of the deterministic text that
// generated_text_bytes appends.
func GeneratedText(n int) string {
	var b strings.Builder
	b.Grow(n + len(generatedLine) + 8)
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, generatedLine, i)
	}
	return b.String()[:n]
}

func expandGenerated(sc *Scenario) {
	for ti := range sc.Tools {
		for ri := range sc.Tools[ti].Results {
			r := &sc.Tools[ti].Results[ri]
			if r.GeneratedTextBytes <= 0 {
				continue
			}
			if r.Result == nil {
				r.Result = map[string]any{}
			}
			content, _ := r.Result["content"].([]any)
			content = append(content, map[string]any{"type": "text", "text": GeneratedText(r.GeneratedTextBytes)})
			r.Result["content"] = content
		}
	}
}
