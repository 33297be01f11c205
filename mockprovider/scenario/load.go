package scenario

import (
	"bytes"
	"fmt"
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
		b, err := fs.ReadFile(fsys, f)
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

// LoadDir reads the scenarios of a directory on disk.
func LoadDir(dir string) ([]*Scenario, error) {
	list, err := LoadFS(os.DirFS(dir), ".")
	for _, sc := range list {
		sc.File = path.Join(dir, sc.File)
	}
	return list, err
}

// Parse decodes one scenario file; errors name the file and line.
func Parse(file string, data []byte) (*Scenario, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var sc Scenario
	if err := dec.Decode(&sc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if sc.Name == "" {
		return nil, fmt.Errorf("%s: scenario has no name", file)
	}
	sc.File = file
	return &sc, nil
}
