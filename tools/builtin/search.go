package builtin

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"tact/tools"
)

const (
	maxSearchMatches  = 200
	maxSearchLine     = 300
	maxSearchFileSize = 10 << 20
)

// SearchFilesArgs are the parameters of search_files.
type SearchFilesArgs struct {
	Pattern string `json:"pattern" jsonschema:"regular expression (Go RE2 syntax) to look for in each line"`
	Path    string `json:"path,omitempty" jsonschema:"directory or file to search, relative to the workspace (default .)"`
	Glob    string `json:"glob,omitempty" jsonschema:"only search files whose name matches this glob, e.g. *.go"`
}

func searchFilesTool(ws *Workspace) tools.Tool {
	spec := tools.Spec{
		Name:        "search_files",
		Description: "Search text files in the workspace for a regular expression. Returns file:line: text lines; skips .git, binary files and symlinks.",
		Annotations: readOnly(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(ctx context.Context, a SearchFilesArgs) (tools.Result, error) {
		re, err := regexp.Compile(a.Pattern)
		if err != nil {
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("pattern is not a valid regular expression: %v", err)), nil
		}
		if a.Glob != "" {
			if _, err := filepath.Match(a.Glob, "x"); err != nil {
				return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("glob %q is malformed: %v", a.Glob, err)), nil
			}
		}
		if a.Path == "" {
			a.Path = "."
		}
		root, err := ws.Resolve(a.Path)
		if err != nil {
			return fileErr(err), nil
		}
		var out []string
		truncated := false
		walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if d.IsDir() {
				if d.Name() == ".git" && p != root {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil // symlinks could lead outside the workspace
			}
			if a.Glob != "" {
				if ok, _ := filepath.Match(a.Glob, d.Name()); !ok {
					return nil
				}
			}
			if info, err := d.Info(); err != nil || info.Size() > maxSearchFileSize {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil || isBinary(data) {
				return nil
			}
			rel := ws.Rel(p)
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 64*1024), maxSearchFileSize)
			for n := 1; sc.Scan(); n++ {
				line := sc.Text()
				if !re.MatchString(line) {
					continue
				}
				if len(out) == maxSearchMatches {
					truncated = true
					return filepath.SkipAll
				}
				if len(line) > maxSearchLine {
					line = tools.TruncateMiddle(line, maxSearchLine)
					line = strings.ReplaceAll(line, "\n", " ")
				}
				out = append(out, fmt.Sprintf("%s:%d: %s", rel, n, line))
			}
			return nil
		})
		if walkErr != nil {
			return tools.Result{}, fmt.Errorf("search stopped: %w", walkErr)
		}
		if len(out) == 0 {
			return tools.OK("no matches"), nil
		}
		text := strings.Join(out, "\n")
		if truncated {
			text += fmt.Sprintf("\n…[stopped after %d matches; narrow the pattern, path or glob]", maxSearchMatches)
		}
		return tools.OK(text), nil
	})
}
