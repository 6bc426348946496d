package approval

import (
	"path"
	"strings"
	"unicode/utf8"
)

// word is one shell word after quote removal.
type word struct {
	text string
	// literal is false when the word holds an expansion ($VAR, $(…), a glob,
	// a brace expansion): its value at run time is unknown.
	literal bool
}

// matchMode says how unknown words are treated.
type matchMode int

const (
	// modeAllow needs certainty: unknown words match only a trailing star.
	modeAllow matchMode = iota
	// modeDeny is cautious: an unknown word may match any pattern word, and
	// the first word is also compared by its base name.
	modeDeny
)

// cmdPattern is a compiled command pattern such as "git log *".
type cmdPattern struct {
	words []string // without a trailing lone "*"
	// restStar is set when the pattern ends in a lone "*".
	restStar bool
	// gluedRest is set when the last word ends in a glued "*" ("git log*"):
	// that word matches any text and the words after it are free.
	gluedRest bool
}

func compilePattern(s string) cmdPattern {
	ws := strings.Fields(s)
	var p cmdPattern
	if n := len(ws); n > 0 && ws[n-1] == "*" {
		p.restStar = true
		ws = ws[:n-1]
	} else if n > 0 && strings.HasSuffix(ws[n-1], "*") {
		p.gluedRest = true
	}
	p.words = ws
	return p
}

// String gives the pattern back in its space form.
func (p cmdPattern) String() string {
	s := strings.Join(p.words, " ")
	if p.restStar {
		if s != "" {
			s += " "
		}
		s += "*"
	}
	return s
}

// match reports whether the simple command ws matches the pattern.
func (p cmdPattern) match(ws []word, mode matchMode) bool {
	n := len(p.words)
	if p.restStar || p.gluedRest {
		if len(ws) < n {
			return false
		}
	} else if len(ws) != n {
		return false
	}
	if n == 0 {
		// A lone "*" matches any command; an empty pattern matches none.
		return p.restStar && len(ws) > 0
	}
	for i, pw := range p.words {
		if !matchWord(pw, ws[i], i == 0, mode) {
			return false
		}
	}
	return true
}

func matchWord(pattern string, w word, first bool, mode matchMode) bool {
	if !w.literal {
		return mode == modeDeny
	}
	if wildMatch(pattern, w.text) {
		return true
	}
	if first && mode == modeDeny {
		if i := strings.LastIndexByte(w.text, '/'); i >= 0 && i < len(w.text)-1 {
			return wildMatch(pattern, w.text[i+1:])
		}
	}
	return false
}

// wildMatch matches s against a pattern where * is any text (slashes too)
// and ? is one character; everything else is compared byte for byte.
func wildMatch(pattern, s string) bool {
	if !strings.ContainsAny(pattern, "*?") {
		return pattern == s
	}
	// Iterative matcher with one backtrack point: O(len(pattern)*len(s)).
	pi, ti := 0, 0
	star, mark := -1, 0
	for ti < len(s) {
		switch {
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, ti
			pi++
		case pi < len(pattern) && pattern[pi] == '?':
			_, n := utf8.DecodeRuneInString(s[ti:])
			pi++
			ti += n
		case pi < len(pattern) && pattern[pi] == s[ti]:
			pi++
			ti++
		case star >= 0:
			pi = star + 1
			_, n := utf8.DecodeRuneInString(s[mark:])
			mark += n
			ti = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// matchDoublestar matches a slash-separated relative path against a pattern
// where ** is any number of segments (none too) and *, ? and [...] work
// within one segment.
func matchDoublestar(pattern, name string) bool {
	pattern = strings.TrimPrefix(pattern, "./")
	ps := splitSegments(pattern)
	ns := splitSegments(name)
	return matchSegments(ps, ns)
}

func splitSegments(s string) []string {
	if s == "" || s == "." {
		return nil
	}
	var out []string
	for _, seg := range strings.Split(s, "/") {
		if seg != "" && seg != "." {
			out = append(out, seg)
		}
	}
	return out
}

func matchSegments(ps, ns []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			// Collapse repeated ** and try every split point.
			for len(ps) > 1 && ps[1] == "**" {
				ps = ps[1:]
			}
			rest := ps[1:]
			for i := 0; i <= len(ns); i++ {
				if matchSegments(rest, ns[i:]) {
					return true
				}
			}
			return false
		}
		if len(ns) == 0 {
			return false
		}
		ok, err := path.Match(ps[0], ns[0])
		if err != nil || !ok {
			return false
		}
		ps, ns = ps[1:], ns[1:]
	}
	return len(ns) == 0
}
