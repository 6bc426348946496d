package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// os.Root's own refusal must read like Resolve's, with the --workdir hint.
// This also catches a Go release that rewords the unexported error.
func TestRootEscapeBecomesOutsideError(t *testing.T) {
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	root, err := ws.openRoot()
	if err != nil {
		t.Fatal(err)
	}
	_, rerr := root.Open("../x")
	if rerr == nil {
		t.Fatal("os.Root opened a path above the root")
	}
	got := ws.rootErr("../x", rerr)
	if !errors.Is(got, ErrOutsideWorkspace) || !strings.Contains(got.Error(), `path "../x" is outside the workspace `+ws.Root()) || !strings.Contains(got.Error(), "--workdir") {
		t.Fatalf("escape from os.Root reported as %v", got)
	}
	if other := ws.rootErr("a", os.ErrNotExist); other != os.ErrNotExist {
		t.Fatalf("unrelated error changed to %v", other)
	}
}

// os.Root refuses absolute symlinks even when they stay inside; the tools
// still follow them because Resolve has already resolved them.
func TestAbsoluteSymlinkInsideStillWorks(t *testing.T) {
	h := newHarness(t, Options{})
	writeFiles(t, h.ws, map[string]string{"sub/a.txt": "alpha\n"})
	real, err := filepath.EvalSymlinks(h.ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "sub"), filepath.Join(h.ws, "abs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(real, "sub", "a.txt"), filepath.Join(h.ws, "alink.txt")); err != nil {
		t.Fatal(err)
	}
	if got := h.ok("read_file", map[string]any{"path": "abs/a.txt"}); got != "alpha\n" {
		t.Fatalf("read through absolute dir link: %q", got)
	}
	if got := h.ok("read_file", map[string]any{"path": "alink.txt"}); got != "alpha\n" {
		t.Fatalf("read through absolute file link: %q", got)
	}
	if got := h.ok("write_file", map[string]any{"path": "abs/new/b.txt", "content": "beta"}); got != "wrote 4 bytes to sub/new/b.txt" {
		t.Fatalf("write through absolute link: %q", got)
	}
	if got := h.ok("edit_file", map[string]any{"path": "alink.txt", "old_string": "alpha", "new_string": "gamma"}); got != "replaced 1 occurrence(s) in sub/a.txt" {
		t.Fatalf("edit through absolute link: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(h.ws, "alink.txt")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("edit replaced the symlink itself: %v %v", fi, err)
	}
	if got := h.ok("search_files", map[string]any{"pattern": "gamma|beta", "path": "abs"}); got != "sub/a.txt:1: gamma\nsub/new/b.txt:1: beta" {
		t.Fatalf("search through absolute link: %q", got)
	}
	if got := h.ok("list_dir", map[string]any{}); got != "abs -> "+filepath.Join(real, "sub")+"\nalink.txt -> "+filepath.Join(real, "sub", "a.txt")+"\nsub/" {
		t.Fatalf("list: %q", got)
	}
}

func TestEditFileKeepsModeAndLeavesNoTemp(t *testing.T) {
	h := newHarness(t, Options{})
	p := filepath.Join(h.ws, "run.sh")
	writeFiles(t, h.ws, map[string]string{"run.sh": "echo old\n"})
	if err := os.Chmod(p, 0o775); err != nil {
		t.Fatal(err)
	}
	h.ok("edit_file", map[string]any{"path": "run.sh", "old_string": "old", "new_string": "new"})
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o775 {
		t.Fatalf("mode %v after edit, want 0775", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != "echo new\n" {
		t.Fatalf("content %q", b)
	}
	entries, _ := os.ReadDir(h.ws)
	if len(entries) != 1 {
		t.Fatalf("edit left files behind: %v", entries)
	}
	h.fail("edit_file", map[string]any{"path": ".", "old_string": "a", "new_string": "b"}, "execution_failed", "is a directory")
}

func TestReadFileLimitOnHandle(t *testing.T) {
	h := newHarness(t, Options{})
	f, err := os.Create(filepath.Join(h.ws, "big.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(maxReadBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	h.fail("read_file", map[string]any{"path": "big.txt"}, "execution_failed", "more than read_file reads")
}
