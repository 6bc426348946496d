package builtin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// ErrOutsideWorkspace is wrapped by every error Resolve returns for a path
// that leads outside the workspace.
var ErrOutsideWorkspace = errors.New("path is outside the workspace")

// OutsideError says which path was refused and what the workspace is.
type OutsideError struct {
	// Path is the path as the model gave it.
	Path string
	// Root is the workspace root.
	Root string
	// Via, when set, names the symlink target that led outside.
	Via string
}

// Error implements error.
func (e *OutsideError) Error() string {
	via := ""
	if e.Via != "" {
		via = " (through a symlink to " + e.Via + ")"
	}
	return fmt.Sprintf("path %q is outside the workspace %s%s; tact only touches files inside it (start tact with --workdir to change it)",
		e.Path, e.Root, via)
}

// Unwrap lets errors.Is(err, ErrOutsideWorkspace) match.
func (e *OutsideError) Unwrap() error { return ErrOutsideWorkspace }

// Workspace confines file tools to one directory tree.
//
// Resolve checks a path and words the refusal; the file tools then do every
// filesystem access through an *os.Root held open on the root, which walks
// the path beneath the root descriptor and refuses symlinks and ".." that
// leave it. So a folder swapped for a symlink between the check and the use
// cannot lead outside.
type Workspace struct {
	root string

	mu  sync.Mutex
	dir *os.Root // opened on first use; nil until then
}

// NewWorkspace returns a Workspace rooted at root (made absolute, with
// symlinks in it resolved when it exists).
func NewWorkspace(root string) (*Workspace, error) {
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("workspace: cannot read the working directory: %w", err)
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", root, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return &Workspace{root: filepath.Clean(abs)}, nil
}

// Root returns the absolute workspace root.
func (w *Workspace) Root() string { return w.root }

// Resolve turns path (relative to the root, or absolute) into an absolute
// path inside the workspace with every existing symlink resolved. Paths that
// leave the workspace, lexically with ".." or through a symlink (including a
// not-yet-existing file under a symlinked directory, and a dangling symlink),
// are refused with an *OutsideError.
func (w *Workspace) Resolve(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", errors.New("empty path: give a path relative to the workspace " + w.root)
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.root, p)
	}
	p = filepath.Clean(p)
	if !w.inside(p) {
		return "", &OutsideError{Path: path, Root: w.root}
	}
	// Find the longest prefix that exists (without following a final symlink).
	existing := p
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		// A dangling symlink: where it points cannot be checked, so refuse it.
		target, _ := os.Readlink(existing)
		return "", fmt.Errorf("path %q goes through a symlink that cannot be resolved (%s -> %s); tact only follows symlinks that stay in the workspace: %w",
			path, existing, target, &OutsideError{Path: path, Root: w.root})
	}
	rest, err := filepath.Rel(existing, p)
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", path, err)
	}
	full := filepath.Join(real, rest)
	if !w.inside(full) {
		return "", &OutsideError{Path: path, Root: w.root, Via: real}
	}
	return full, nil
}

// Close releases the directory handle the file tools use. Later file tool
// calls open it again.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dir == nil {
		return nil
	}
	err := w.dir.Close()
	w.dir = nil
	return err
}

// openRoot returns the *os.Root of the workspace, opening it on first use (a
// failure is not kept, so a root created later still works).
func (w *Workspace) openRoot() (*os.Root, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dir != nil {
		return w.dir, nil
	}
	r, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, fmt.Errorf("cannot open the workspace %s (start tact with --workdir set to an existing folder): %w", w.root, err)
	}
	w.dir = r
	return r, nil
}

// locate checks path with Resolve and returns it relative to the root, for
// use with the returned *os.Root. Symlinks that existed at the check are
// already resolved in rel, so one that stays inside but is absolute (which
// os.Root refuses) still works; anything swapped in later is walked by
// os.Root, which refuses it if it leads outside.
func (w *Workspace) locate(path string) (rel string, root *os.Root, err error) {
	full, err := w.Resolve(path)
	if err != nil {
		return "", nil, err
	}
	rel, err = filepath.Rel(w.root, full)
	if err != nil {
		return "", nil, fmt.Errorf("resolve %q: %w", path, err)
	}
	root, err = w.openRoot()
	if err != nil {
		return "", nil, err
	}
	return rel, root, nil
}

// rootErr turns an error of an os.Root method on path into the
// *OutsideError Resolve gives when os.Root found the path leaving the root.
// os.Root reports a symlink that stopped being a folder while it walked
// (the path changed under it) as ELOOP or ENOTDIR; then path is checked
// again and, if it now leads outside, that refusal is returned. Other errors
// come back unchanged.
func (w *Workspace) rootErr(path string, err error) error {
	if isEscape(err) {
		return &OutsideError{Path: path, Root: w.root}
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
		if _, rerr := w.Resolve(path); errors.Is(rerr, ErrOutsideWorkspace) {
			return rerr
		}
	}
	return err
}

// isEscape reports whether err is os.Root refusing a path that leaves the
// root. The os package does not export that error, so its text is compared.
func isEscape(err error) bool {
	for err != nil {
		if err.Error() == "path escapes from parent" {
			return true
		}
		err = errors.Unwrap(err)
	}
	return false
}

// Rel returns abs relative to the root, for messages; "." for the root.
func (w *Workspace) Rel(abs string) string {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

func (w *Workspace) inside(p string) bool {
	if p == w.root {
		return true
	}
	rel, err := filepath.Rel(w.root, p)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
