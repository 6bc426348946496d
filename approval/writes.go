package approval

import (
	"fmt"
	"path/filepath"
	"strings"
)

// devWrites are the device files a redirection may always write.
var devWrites = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

// checkWrites resolves the files the script writes: redirection targets and
// the files named by write options and operands (writeSpecs). It returns the
// targets to report and why some of them keep allow rules from applying:
// a target must be a literal path that resolves (after `..` and symlinks)
// inside the workspace and outside any .git folder, or a harmless device.
func (p *Policy) checkWrites(s shellScript) (report, bad []string) {
	for _, w := range s.writes {
		if w.literal && devWrites[w.text] {
			continue
		}
		report = append(report, w.text)
		switch {
		case !w.literal:
			bad = append(bad, fmt.Sprintf("writes to %s, whose name is not plain text", w.text))
			continue
		case !filepath.IsAbs(w.text) && (s.changesDir || w.chdir):
			bad = append(bad, fmt.Sprintf("writes to %s after changing directory, so it may be outside the workspace", w.text))
			continue
		case !filepath.IsAbs(w.text) && w.nested:
			bad = append(bad, fmt.Sprintf("writes to %s from a nested script, whose directory tact cannot be sure of", w.text))
			continue
		}
		rel, inside, err := workspaceRel(p.root, w.text)
		switch {
		case err != nil:
			bad = append(bad, fmt.Sprintf("writes to %s, which cannot be resolved (%v)", w.text, err))
		case !inside:
			bad = append(bad, fmt.Sprintf("writes to %s, which is outside the workspace %s", w.text, p.root))
		case inGitDir(rel):
			bad = append(bad, fmt.Sprintf("writes to %s, inside a .git folder (git config and hooks run commands)", w.text))
		}
	}
	return report, bad
}

// inGitDir reports whether a workspace-relative slash path is a .git folder
// or inside one, at any depth.
func inGitDir(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if strings.EqualFold(seg, ".git") {
			return true
		}
	}
	return false
}
