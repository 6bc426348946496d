package builtin

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
type Workspace struct {
	root string
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
