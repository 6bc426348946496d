package builtin

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"tact/tools"
)

const (
	defaultReadLimit = 2000    // lines read_file returns without a limit
	maxReadBytes     = 4 << 20 // larger files must be read with offset/limit
	maxListEntries   = 1000
)

// ReadFileArgs are the parameters of read_file.
type ReadFileArgs struct {
	Path   string `json:"path" jsonschema:"file path, relative to the workspace"`
	Offset int    `json:"offset,omitempty" jsonschema:"first line to return, counting from 1 (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many lines to return (default 2000)"`
}

// ListDirArgs are the parameters of list_dir.
type ListDirArgs struct {
	Path string `json:"path,omitempty" jsonschema:"directory, relative to the workspace (default .)"`
}

// WriteFileArgs are the parameters of write_file.
type WriteFileArgs struct {
	Path    string `json:"path" jsonschema:"file path, relative to the workspace; parent directories are created"`
	Content string `json:"content" jsonschema:"the complete new content of the file"`
}

// EditFileArgs are the parameters of edit_file.
type EditFileArgs struct {
	Path       string `json:"path" jsonschema:"file path, relative to the workspace"`
	OldString  string `json:"old_string" jsonschema:"exact text to replace; must occur exactly once unless replace_all is true"`
	NewString  string `json:"new_string" jsonschema:"replacement text"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"replace every occurrence"`
}

// fileErr turns an error of a file tool into a Result the model can act on.
func fileErr(err error) tools.Result {
	msg := err.Error()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		msg += " (no such file; use list_dir to see what exists)"
	case errors.Is(err, fs.ErrPermission):
		msg += " (permission denied)"
	}
	return tools.Fail(tools.KindExecutionFailed, msg)
}

func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

func readFileTool(ws *Workspace) tools.Tool {
	spec := tools.Spec{
		Name:        "read_file",
		Description: "Read a text file in the workspace. Returns up to 2000 lines; use offset and limit for more.",
		Annotations: readOnly(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(_ context.Context, a ReadFileArgs) (tools.Result, error) {
		rel, root, err := ws.locate(a.Path)
		if err != nil {
			return fileErr(err), nil
		}
		f, err := root.Open(rel)
		if err != nil {
			return fileErr(ws.rootErr(a.Path, err)), nil
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return fileErr(err), nil
		}
		if st.IsDir() {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("%s is a directory; use list_dir", a.Path)), nil
		}
		if st.Size() > maxReadBytes {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("%s is %d bytes, more than read_file reads (%d); use search_files or shell (head, sed -n) to read parts", a.Path, st.Size(), maxReadBytes)), nil
		}
		data, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
		if err != nil {
			return fileErr(err), nil
		}
		if len(data) > maxReadBytes {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("%s is more than %d bytes, more than read_file reads; use search_files or shell (head, sed -n) to read parts", a.Path, maxReadBytes)), nil
		}
		if isBinary(data) {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("%s looks like a binary file (%d bytes); read_file only shows text", a.Path, len(data))), nil
		}
		if len(data) == 0 {
			return tools.OK("(empty file)"), nil
		}
		lines := strings.SplitAfter(string(data), "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		offset, limit := max(a.Offset, 1), a.Limit
		if limit <= 0 {
			limit = defaultReadLimit
		}
		if offset > len(lines) {
			return tools.Fail(tools.KindInvalidParameters, fmt.Sprintf("offset %d is past the end of %s (%d lines)", offset, a.Path, len(lines))), nil
		}
		end := min(offset-1+limit, len(lines))
		out := strings.Join(lines[offset-1:end], "")
		if offset > 1 || end < len(lines) {
			out = strings.TrimSuffix(out, "\n") + fmt.Sprintf("\n…[lines %d-%d of %d; pass offset %d to read on]", offset, end, len(lines), end+1)
			if end == len(lines) {
				out = strings.TrimSuffix(out, fmt.Sprintf("; pass offset %d to read on]", end+1)) + "]"
			}
		}
		return tools.OK(out), nil
	})
}

func listDirTool(ws *Workspace) tools.Tool {
	spec := tools.Spec{
		Name:        "list_dir",
		Description: "List a directory in the workspace: directories end with /, files show their size.",
		Annotations: readOnly(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(_ context.Context, a ListDirArgs) (tools.Result, error) {
		if a.Path == "" {
			a.Path = "."
		}
		rel, root, err := ws.locate(a.Path)
		if err != nil {
			return fileErr(err), nil
		}
		dir, err := root.Open(rel)
		if err != nil {
			return fileErr(ws.rootErr(a.Path, err)), nil
		}
		// ReadDir on the open handle stats entries relative to it (fstatat),
		// never by path.
		entries, err := dir.ReadDir(-1)
		dir.Close()
		if err != nil {
			return fileErr(err), nil
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		var sb strings.Builder
		for i, e := range entries {
			if i == maxListEntries {
				fmt.Fprintf(&sb, "…[%d more entries]\n", len(entries)-i)
				break
			}
			switch {
			case e.IsDir():
				sb.WriteString(e.Name() + "/\n")
			case e.Type()&fs.ModeSymlink != 0:
				target, _ := root.Readlink(filepath.Join(rel, e.Name()))
				fmt.Fprintf(&sb, "%s -> %s\n", e.Name(), target)
			default:
				size := int64(0)
				if info, err := e.Info(); err == nil {
					size = info.Size()
				}
				fmt.Fprintf(&sb, "%s (%d bytes)\n", e.Name(), size)
			}
		}
		if len(entries) == 0 {
			return tools.OK("(empty directory)"), nil
		}
		return tools.OK(strings.TrimSuffix(sb.String(), "\n")), nil
	})
}

func writeFileTool(ws *Workspace) tools.Tool {
	spec := tools.Spec{
		Name:        "write_file",
		Description: "Create or overwrite a file in the workspace with the given content.",
		Annotations: destructive(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(_ context.Context, a WriteFileArgs) (tools.Result, error) {
		rel, root, err := ws.locate(a.Path)
		if err != nil {
			return fileErr(err), nil
		}
		if st, err := root.Stat(rel); err == nil && st.IsDir() {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("%s is a directory", a.Path)), nil
		}
		if parent := filepath.Dir(rel); parent != "." {
			if err := root.MkdirAll(parent, 0o755); err != nil {
				return fileErr(ws.rootErr(a.Path, err)), nil
			}
		}
		// An existing file keeps its mode; a new one gets 0644 (less umask).
		if err := root.WriteFile(rel, []byte(a.Content), 0o644); err != nil {
			return fileErr(ws.rootErr(a.Path, err)), nil
		}
		return tools.OK(fmt.Sprintf("wrote %d bytes to %s", len(a.Content), filepath.ToSlash(rel))), nil
	})
}

func editFileTool(ws *Workspace) tools.Tool {
	spec := tools.Spec{
		Name:        "edit_file",
		Description: "Replace exact text in a file in the workspace. old_string must occur exactly once unless replace_all is true; include surrounding lines to make it unique.",
		Annotations: destructive(),
		Source:      Source,
	}
	return tools.NewFunc(spec, func(_ context.Context, a EditFileArgs) (tools.Result, error) {
		if a.OldString == "" {
			return tools.Fail(tools.KindInvalidParameters, "old_string is empty; to create a file use write_file"), nil
		}
		if a.OldString == a.NewString {
			return tools.Fail(tools.KindInvalidParameters, "old_string and new_string are the same; nothing to change"), nil
		}
		rel, root, err := ws.locate(a.Path)
		if err != nil {
			return fileErr(err), nil
		}
		data, st, err := readAll(root, rel)
		if err != nil {
			return fileErr(ws.rootErr(a.Path, err)), nil
		}
		if st.IsDir() {
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("%s is a directory", a.Path)), nil
		}
		text := string(data)
		n := strings.Count(text, a.OldString)
		switch {
		case n == 0:
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("old_string not found in %s; read the file and copy the text exactly, white space included", a.Path)), nil
		case n > 1 && !a.ReplaceAll:
			return tools.Fail(tools.KindExecutionFailed, fmt.Sprintf("old_string occurs %d times in %s; add surrounding lines to make it unique, or set replace_all", n, a.Path)), nil
		}
		if a.ReplaceAll {
			text = strings.ReplaceAll(text, a.OldString, a.NewString)
		} else {
			text = strings.Replace(text, a.OldString, a.NewString, 1)
		}
		if err := replaceFile(root, rel, []byte(text), st.Mode().Perm()); err != nil {
			return fileErr(ws.rootErr(a.Path, err)), nil
		}
		return tools.OK(fmt.Sprintf("replaced %d occurrence(s) in %s", n, filepath.ToSlash(rel))), nil
	})
}

// readAll reads the file rel in root through one handle and returns its
// content and the handle's FileInfo (content is nil for a directory).
func readAll(root *os.Root, rel string) ([]byte, fs.FileInfo, error) {
	f, err := root.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return nil, st, err
	}
	data, err := io.ReadAll(f)
	return data, st, err
}

// replaceFile writes data to a new file beside rel in root and renames it
// over rel, so a failed write leaves the old content whole.
func replaceFile(root *os.Root, rel string, data []byte, perm fs.FileMode) error {
	tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tact-"+rand.Text()[:8]+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // on the handle, so the mode is exact despite umask
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, rel)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}
