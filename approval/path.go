package approval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds symlink resolution, like the kernel's ELOOP limit.
const maxLinks = 40

var errTooManyLinks = errors.New("too many levels of symbolic links")

// resolvePath makes p absolute against root and follows every symlink in the
// part of it that exists, the way the kernel would when the tool opens it.
// Components after the first missing one are cleaned lexically.
func resolvePath(root, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = root + string(filepath.Separator) + p
	}
	links := 0
	return resolveFrom(string(filepath.Separator), splitPath(p), &links)
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

// resolveFrom walks comps starting at cur, a real directory without symlinks.
func resolveFrom(cur string, comps []string, links *int) (string, error) {
	for i, c := range comps {
		if c == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing: nothing below can be a symlink yet.
			return filepath.Join(append([]string{cur}, comps[i:]...)...), nil
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		*links++
		if *links > maxLinks {
			return "", errTooManyLinks
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		base := cur
		if filepath.IsAbs(target) {
			base = string(filepath.Separator)
		}
		rest := append(splitPath(target), comps[i+1:]...)
		return resolveFrom(base, rest, links)
	}
	return cur, nil
}

// workspaceRel resolves p and returns it relative to root with forward
// slashes; inside is false when it resolves outside root.
func workspaceRel(root, p string) (rel string, inside bool, err error) {
	abs, err := resolvePath(root, p)
	if err != nil {
		return "", false, err
	}
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs, false, nil
	}
	if r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return abs, false, nil
	}
	return filepath.ToSlash(r), true, nil
}

// realRoot returns the workspace root as an absolute path without symlinks.
func realRoot(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	return filepath.Clean(abs), nil
}
