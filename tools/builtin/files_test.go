package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tact/tools"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWorkspaceResolve(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, root, map[string]string{"sub/a.txt": "a"})
	writeFiles(t, outside, map[string]string{"secret.txt": "s"})
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(root, "outdir")))                         // dir symlink leading out
	must(os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "f"))) // file symlink leading out
	must(os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(root, "dangling")))
	must(os.Symlink("sub", filepath.Join(root, "insidelink"))) // stays inside: allowed
	ws, err := NewWorkspace(root)
	must(err)
	realRoot := ws.Root()

	for _, ok := range []struct{ in, want string }{
		{".", realRoot},
		{"sub/a.txt", filepath.Join(realRoot, "sub/a.txt")},
		{"sub/../sub/new.txt", filepath.Join(realRoot, "sub/new.txt")},
		{"new/dir/file", filepath.Join(realRoot, "new/dir/file")},
		{filepath.Join(realRoot, "sub"), filepath.Join(realRoot, "sub")},
		{"insidelink/a.txt", filepath.Join(realRoot, "sub/a.txt")},
	} {
		got, err := ws.Resolve(ok.in)
		if err != nil || got != ok.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", ok.in, got, err, ok.want)
		}
	}
	for _, bad := range []string{"..", "../x", "sub/../../x", "/etc/passwd", outside, "outdir", "outdir/secret.txt", "outdir/new/file.txt", "f", "dangling"} {
		_, err := ws.Resolve(bad)
		if !errors.Is(err, ErrOutsideWorkspace) {
			t.Errorf("Resolve(%q) = %v, want an outside-workspace error", bad, err)
			continue
		}
		if !strings.Contains(err.Error(), "is outside the workspace "+realRoot) || !strings.Contains(err.Error(), "--workdir") {
			t.Errorf("unclear error: %v", err)
		}
	}
	if _, err := ws.Resolve(""); err == nil {
		t.Error("empty path accepted")
	}
}

func TestFileToolsRefuseEscapes(t *testing.T) {
	h := newHarness(t, Options{})
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(h.ws, "out")); err != nil {
		t.Fatal(err)
	}
	h.fail("write_file", map[string]any{"path": "out/pwned.txt", "content": "x"}, tools.KindExecutionFailed, "outside the workspace")
	if _, err := os.Stat(filepath.Join(outside, "pwned.txt")); err == nil {
		t.Fatal("write_file wrote through a symlink outside the workspace")
	}
	h.fail("read_file", map[string]any{"path": "../etc"}, tools.KindExecutionFailed, `path "../etc" is outside the workspace`)
	h.fail("list_dir", map[string]any{"path": "out"}, tools.KindExecutionFailed, "outside the workspace")
	h.fail("edit_file", map[string]any{"path": "/etc/hosts", "old_string": "a", "new_string": "b"}, tools.KindExecutionFailed, "outside the workspace")
	h.fail("search_files", map[string]any{"pattern": "x", "path": ".."}, tools.KindExecutionFailed, "outside the workspace")
}

func TestReadWriteListFiles(t *testing.T) {
	h := newHarness(t, Options{})
	if got := h.ok("write_file", map[string]any{"path": "notes/todo.txt", "content": "one\ntwo\nthree\nfour\n"}); got != "wrote 19 bytes to notes/todo.txt" {
		t.Fatalf("write: %q", got)
	}
	if got := h.ok("read_file", map[string]any{"path": "notes/todo.txt"}); got != "one\ntwo\nthree\nfour\n" {
		t.Fatalf("read: %q", got)
	}
	if got := h.ok("read_file", map[string]any{"path": "notes/todo.txt", "offset": 2, "limit": 2}); got != "two\nthree\n…[lines 2-3 of 4; pass offset 4 to read on]" {
		t.Fatalf("read window: %q", got)
	}
	h.fail("read_file", map[string]any{"path": "missing.txt"}, tools.KindExecutionFailed, "no such file")
	h.fail("read_file", map[string]any{"path": "notes"}, tools.KindExecutionFailed, "directory")
	writeFiles(t, h.ws, map[string]string{"bin.dat": "ab\x00cd"})
	h.fail("read_file", map[string]any{"path": "bin.dat"}, tools.KindExecutionFailed, "binary")
	got := h.ok("list_dir", map[string]any{})
	if got != "bin.dat (5 bytes)\nnotes/" {
		t.Fatalf("list: %q", got)
	}
	h.fail("write_file", map[string]any{"path": "x.txt"}, tools.KindInvalidParameters, "/content: required")
}

func TestEditFile(t *testing.T) {
	h := newHarness(t, Options{})
	writeFiles(t, h.ws, map[string]string{"main.go": "a := 1\nb := 1\nc := 2\n"})
	read := func() string {
		b, err := os.ReadFile(filepath.Join(h.ws, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	h.fail("edit_file", map[string]any{"path": "main.go", "old_string": ":= 1", "new_string": ":= 3"}, tools.KindExecutionFailed, "occurs 2 times")
	h.fail("edit_file", map[string]any{"path": "main.go", "old_string": "zzz", "new_string": "y"}, tools.KindExecutionFailed, "not found")
	h.fail("edit_file", map[string]any{"path": "main.go", "old_string": "", "new_string": "y"}, tools.KindInvalidParameters, "empty")
	if read() != "a := 1\nb := 1\nc := 2\n" {
		t.Fatal("failed edits changed the file")
	}
	h.ok("edit_file", map[string]any{"path": "main.go", "old_string": "c := 2", "new_string": "c := 5"})
	if read() != "a := 1\nb := 1\nc := 5\n" {
		t.Fatalf("single edit: %q", read())
	}
	if got := h.ok("edit_file", map[string]any{"path": "main.go", "old_string": ":= 1", "new_string": ":= 9", "replace_all": true}); got != "replaced 2 occurrence(s) in main.go" {
		t.Fatalf("replace_all: %q", got)
	}
	if read() != "a := 9\nb := 9\nc := 5\n" {
		t.Fatalf("replace_all: %q", read())
	}
}

func TestSearchFiles(t *testing.T) {
	h := newHarness(t, Options{})
	writeFiles(t, h.ws, map[string]string{
		"a.go":         "package a\nfunc Hello() {}\n",
		"sub/b.go":     "package b\n// hello there\nfunc hello() {}\n",
		"sub/c.txt":    "func hello in text\n",
		".git/config":  "func hello in git\n",
		"blob.bin":     "func hello\x00binary\n",
		"sub/long.txt": "func hello " + strings.Repeat("x", 1000) + "\n",
	})
	got := h.ok("search_files", map[string]any{"pattern": `func [Hh]ello`, "glob": "*.go"})
	if got != "a.go:2: func Hello() {}\nsub/b.go:3: func hello() {}" {
		t.Fatalf("glob search: %q", got)
	}
	got = h.ok("search_files", map[string]any{"pattern": "hello", "path": "sub"})
	if !strings.Contains(got, "sub/c.txt:1: func hello in text") || strings.Contains(got, ".git") || strings.Contains(got, "blob") {
		t.Fatalf("search: %q", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if len(line) > 400 {
			t.Fatalf("long line not capped: %d bytes", len(line))
		}
	}
	if got := h.ok("search_files", map[string]any{"pattern": "nomatch_zz"}); got != "no matches" {
		t.Fatalf("no match: %q", got)
	}
	h.fail("search_files", map[string]any{"pattern": "("}, tools.KindInvalidParameters, "regular expression")
}
