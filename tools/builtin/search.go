package builtin

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
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
		rel, root, err := ws.locate(a.Path)
		if err != nil {
			return fileErr(err), nil
		}
		// Walk root.FS(), so every directory listing and file open goes
		// through the os.Root and cannot be led outside by a swapped symlink.
		start := filepath.ToSlash(rel)
		var out []string
		var startErr error
		truncated := false
		walkErr := fs.WalkDir(root.FS(), start, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == start && isEscape(err) {
					startErr = ws.rootErr(a.Path, err)
					return fs.SkipAll
				}
				return nil // unreadable entries are skipped
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if d.IsDir() {
				if d.Name() == ".git" && p != start {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil // symlinks are not followed
			}
			if a.Glob != "" {
				if ok, _ := filepath.Match(a.Glob, d.Name()); !ok {
					return nil
				}
			}
			data, ok := readSearchable(root, p)
			if !ok {
				return nil
			}
			rel := p
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(make([]byte, 64*1024), maxSearchFileSize)
			for n := 1; sc.Scan(); n++ {
				line := sc.Text()
				if !re.MatchString(line) {
					continue
				}
				if len(out) == maxSearchMatches {
					truncated = true
					return fs.SkipAll
				}
				if len(line) > maxSearchLine {
					line = tools.TruncateMiddle(line, maxSearchLine)
					line = strings.ReplaceAll(line, "\n", " ")
				}
				out = append(out, fmt.Sprintf("%s:%d: %s", rel, n, line))
			}
			return nil
		})
		if startErr != nil {
			return fileErr(startErr), nil
		}
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

// readSearchable reads name (a slash path in root) if it is a regular text
// file of at most maxSearchFileSize bytes, checked on the opened handle.
func readSearchable(root *os.Root, name string) ([]byte, bool) {
	f, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > maxSearchFileSize {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSearchFileSize+1))
	if err != nil || len(data) > maxSearchFileSize || isBinary(data) {
		return nil, false
	}
	return data, true
}
