package approval

import (
	"strings"
	"testing"
)

func lits(s string) []word {
	var ws []word
	for _, f := range strings.Fields(s) {
		ws = append(ws, word{text: f, literal: true})
	}
	return ws
}

func TestPatternMatch(t *testing.T) {
	cases := []struct {
		pattern, cmd string
		want         bool
	}{
		{"git log *", "git log", true},
		{"git log *", "git log --oneline", true},
		{"git log *", "git logout", false},
		{"git log *", "git", false},
		{"git log*", "git logout", true},
		{"git log*", "git log --all", true},
		{"git log*", "git lo", false},
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"git status", "git", false},
		{"*", "anything at all", true},
		{"", "ls", false},
		{"go test ./...", "go test ./...", true},
		{"go test ./pkg/*", "go test ./pkg/a/b", true},    // * crosses / within a word
		{"go test ./pkg/*", "go test ./pkg/a more", true}, // a trailing glued star takes the rest
		{"go test ./pkg/* -v", "go test ./pkg/a more -v", false},
		{"l?", "ls", true},
		{"l?", "lsx", false},
		{"npm run * --silent", "npm run build --silent", true},
		{"npm run * --silent", "npm run build", false},
	}
	for _, tc := range cases {
		if got := compilePattern(tc.pattern).match(lits(tc.cmd), modeAllow); got != tc.want {
			t.Errorf("%q vs %q: got %v, want %v", tc.pattern, tc.cmd, got, tc.want)
		}
	}
}

func TestPatternUnknownWords(t *testing.T) {
	unknown := []word{{text: "git", literal: true}, {text: "$…", literal: false}}
	p := compilePattern("git push *")
	if p.match(unknown, modeAllow) {
		t.Error("an unknown word matched a fixed word in allow mode")
	}
	if !p.match(unknown, modeDeny) {
		t.Error("an unknown word did not match in deny mode")
	}
	if !compilePattern("git *").match(unknown, modeAllow) {
		t.Error("a trailing * did not cover an unknown word")
	}
	abs := lits("/usr/bin/git push")
	if p.match(abs, modeAllow) || !p.match(abs, modeDeny) {
		t.Error("base-name matching should apply in deny mode only")
	}
}

func TestDoublestar(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"src/**", "src/a.go", true},
		{"src/**", "src/a/b/c.go", true},
		{"src/**", "src", true},
		{"src/**", "srcx/a", false},
		{"**/*.go", "a.go", true},
		{"**/*.go", "x/y/a.go", true},
		{"**/*.go", "x/y/a.md", false},
		{"src/**/test/*.go", "src/test/a.go", true},
		{"src/**/test/*.go", "src/a/b/test/a.go", true},
		{"src/**/test/*.go", "src/a/b/test/x/a.go", false},
		{"*.md", "README.md", true},
		{"*.md", "docs/README.md", false},
		{"./docs/*", "docs/a", true},
		{"**", "anything/at/all", true},
		{"a/**/**/b", "a/b", true},
	}
	for _, tc := range cases {
		if got := matchDoublestar(tc.pattern, tc.name); got != tc.want {
			t.Errorf("%q vs %q: got %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestWildMatch(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"*", "", true}, {"a*b", "ab", true}, {"a*b", "axxb", true}, {"a*b", "axxbc", false},
		{"*a*a*", "banana", true}, {"?", "é", true}, {"mcp:*", "mcp:github", true}, {"shell", "shel", false},
	}
	for _, tc := range cases {
		if got := wildMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildMatch(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}
