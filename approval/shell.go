package approval

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxScriptDepth limits how deep `bash -c '…'` and `eval '…'` are followed.
const maxScriptDepth = 4

// simpleCmd is one simple command found in a shell script.
type simpleCmd struct {
	words []word
}

// String shows the command's words, with unknown words as written.
func (c simpleCmd) String() string {
	parts := make([]string, len(c.words))
	for i, w := range c.words {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

// shellScript is the result of analysing a `command` argument.
type shellScript struct {
	cmds []simpleCmd
	// writes lists files written by redirections (> file, >> file, &> file).
	writes []string
}

// opaque stands for a script tact cannot see into (`bash -c "$X"`); no
// pattern can allow it.
var opaque = simpleCmd{words: []word{{text: "<dynamic script>", literal: false}}}

// analyzeShell parses src as bash and collects every simple command.
func analyzeShell(src string) (shellScript, error) {
	var s shellScript
	err := s.add(src, 0)
	return s, err
}

func (s *shellScript) add(src string, depth int) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return fmt.Errorf("parse shell command: %w", err)
	}
	var walkErr error
	syntax.Walk(f, func(n syntax.Node) bool {
		if walkErr != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.CallExpr:
			var ws []word
			for _, a := range x.Assigns {
				ws = append(ws, assignWord(a))
			}
			if len(x.Args) == 0 {
				s.cmds = append(s.cmds, simpleCmd{words: ws})
				break
			}
			for _, a := range x.Args {
				ws = append(ws, wordOf(a))
			}
			walkErr = s.addCommand(simpleCmd{words: ws}, depth)
		case *syntax.DeclClause:
			ws := []word{{text: x.Variant.Value, literal: true}}
			for _, a := range x.Args {
				ws = append(ws, assignWord(a))
			}
			s.cmds = append(s.cmds, simpleCmd{words: ws})
		case *syntax.Redirect:
			if t, ok := redirectTarget(x); ok {
				s.writes = append(s.writes, t)
			}
		}
		return true
	})
	return walkErr
}

// addCommand records c and whatever it runs: the inner command of wrappers
// (sudo, env, xargs, …) and the scripts of `sh -c` and `eval`.
func (s *shellScript) addCommand(c simpleCmd, depth int) error {
	s.cmds = append(s.cmds, c)
	ws := c.words
	// Skip leading assignments (FOO=1 cmd): they stay in c, the inner
	// analysis looks at the command itself.
	for len(ws) > 0 && ws[0].literal && isAssignment(ws[0].text) {
		ws = ws[1:]
	}
	if len(ws) == 0 || !ws[0].literal {
		return nil
	}
	name := path.Base(ws[0].text)
	args := ws[1:]
	if depth >= maxScriptDepth {
		if isShell(name) || name == "eval" || wrapperArgs[name] != nil {
			s.cmds = append(s.cmds, opaque)
		}
		return nil
	}
	switch {
	case isShell(name):
		script, ok := shellScriptArg(args)
		if !ok {
			return nil
		}
		if !script.literal {
			s.cmds = append(s.cmds, opaque)
			return nil
		}
		return s.add(script.text, depth+1)
	case name == "eval":
		var parts []string
		for _, a := range args {
			if !a.literal {
				s.cmds = append(s.cmds, opaque)
				return nil
			}
			parts = append(parts, a.text)
		}
		if len(parts) == 0 {
			return nil
		}
		return s.add(strings.Join(parts, " "), depth+1)
	case name == "find":
		for i := 0; i < len(args); i++ {
			switch args[i].text {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(args) && args[j].text != ";" && args[j].text != "+" {
					j++
				}
				if j > i+1 {
					if err := s.addCommand(simpleCmd{words: args[i+1 : j]}, depth+1); err != nil {
						return err
					}
				}
				i = j
			}
		}
	case wrapperArgs[name] != nil:
		inner := skipOptions(name, args)
		if len(inner) > 0 {
			return s.addCommand(simpleCmd{words: inner}, depth+1)
		}
	}
	return nil
}

// wrapperArgs lists commands that run another command, with the options
// that take a value (so the value is not taken for the command).
var wrapperArgs = map[string]map[string]bool{
	"sudo":    {"-u": true, "-g": true, "-C": true, "-h": true, "-p": true, "-r": true, "-t": true, "-U": true, "-D": true},
	"doas":    {"-u": true, "-C": true},
	"env":     {"-u": true, "-C": true, "-S": true, "--unset": true, "--chdir": true},
	"command": {},
	"builtin": {},
	"exec":    {"-a": true},
	"nohup":   {},
	"nice":    {"-n": true},
	"time":    {"-f": true, "-o": true},
	"timeout": {"-k": true, "-s": true, "--kill-after": true, "--signal": true},
	"xargs":   {"-I": true, "-n": true, "-P": true, "-d": true, "-L": true, "-s": true, "-E": true, "-a": true, "--arg-file": true, "--delimiter": true, "--max-args": true, "--max-procs": true},
	"stdbuf":  {"-i": true, "-o": true, "-e": true},
	"setsid":  {},
	"ionice":  {"-c": true, "-n": true, "-p": true},
	"chroot":  {},
	"watch":   {"-n": true},
	"busybox": {},
}

// skipOptions returns the command a wrapper runs.
func skipOptions(name string, args []word) []word {
	takesValue := wrapperArgs[name]
	i := 0
	for i < len(args) {
		t := args[i].text
		switch {
		case !args[i].literal:
			return args[i:]
		case t == "--":
			i++
			return tail(args, i, name)
		case strings.HasPrefix(t, "-") && len(t) > 1:
			if takesValue[t] {
				i++
			}
			i++
		case name == "env" && isAssignment(t):
			i++
		default:
			return tail(args, i, name)
		}
	}
	return nil
}

func tail(args []word, i int, name string) []word {
	if i >= len(args) {
		return nil
	}
	switch name {
	case "timeout":
		i++ // the duration
	case "chroot":
		i++ // the new root
	}
	if i >= len(args) {
		return nil
	}
	return args[i:]
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true}

func isShell(name string) bool { return shells[name] }

// shellScriptArg finds the script of `sh [-opts] -c SCRIPT`.
func shellScriptArg(args []word) (word, bool) {
	for i, a := range args {
		if !a.literal {
			return word{}, false
		}
		t := a.text
		if !strings.HasPrefix(t, "-") || t == "-" || t == "--" {
			return word{}, false
		}
		if !strings.HasPrefix(t, "--") && strings.ContainsRune(t, 'c') {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return word{}, false
		}
	}
	return word{}, false
}

func isAssignment(t string) bool {
	i := strings.IndexByte(t, '=')
	if i <= 0 {
		return false
	}
	name := strings.TrimSuffix(t[:i], "+")
	for j, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return name != ""
}

func assignWord(a *syntax.Assign) word {
	if a.Name == nil {
		if a.Value != nil {
			return wordOf(a.Value)
		}
		return word{text: "", literal: false}
	}
	w := word{text: a.Name.Value, literal: a.Index == nil && a.Array == nil}
	if a.Naked {
		return w
	}
	op := "="
	if a.Append {
		op = "+="
	}
	w.text += op
	if a.Value != nil {
		v := wordOf(a.Value)
		w.text += v.text
		w.literal = w.literal && v.literal
	}
	if a.Array != nil {
		w.text += "(…)"
	}
	return w
}

// wordOf removes quotes from a word; the word is literal only when it holds
// no expansion at all.
func wordOf(w *syntax.Word) word {
	var b strings.Builder
	lit := true
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			s, ok := unescapeUnquoted(p.Value)
			lit = lit && ok
			b.WriteString(s)
		case *syntax.SglQuoted:
			if p.Dollar && strings.ContainsRune(p.Value, '\\') {
				lit = false // $'\x72\x6d' is not worth decoding
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
					continue
				}
				lit = false
				b.WriteString("$…")
			}
		default:
			lit = false
			b.WriteString("$…")
		}
	}
	return word{text: b.String(), literal: lit}
}

// unescapeUnquoted removes backslashes from an unquoted literal. It reports
// false when the text holds an unescaped glob or brace expansion.
func unescapeUnquoted(s string) (string, bool) {
	if !strings.ContainsAny(s, "\\*?[{") {
		return s, true
	}
	var b strings.Builder
	ok := true
	brace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					b.WriteByte(s[i])
				}
			}
			continue
		case '*', '?', '[':
			ok = false
		case '{':
			brace = true
		case '}':
			if brace {
				ok = false
			}
		}
		b.WriteByte(c)
	}
	return b.String(), ok
}

// unescapeDouble removes the backslashes that are special inside double quotes.
func unescapeDouble(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// redirectTarget returns the file a redirection writes, if any.
func redirectTarget(r *syntax.Redirect) (string, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
	default:
		return "", false
	}
	if r.Word == nil {
		return "", false
	}
	w := wordOf(r.Word)
	if r.Op == syntax.DplOut && (w.text == "-" || isDigits(w.text)) {
		return "", false // 2>&1 duplicates a descriptor
	}
	if w.text == "/dev/null" {
		return "", false
	}
	return w.text, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// crudeCommands splits an unparsable command at shell operators so deny
// rules still get a look at it.
func crudeCommands(src string) []simpleCmd {
	f := func(r rune) bool { return strings.ContainsRune(";&|()`$<>{}\n", r) }
	var out []simpleCmd
	for _, seg := range strings.FieldsFunc(src, f) {
		var ws []word
		for _, t := range strings.Fields(seg) {
			ws = append(ws, word{text: strings.Trim(t, `"'\`), literal: true})
		}
		if len(ws) > 0 {
			out = append(out, simpleCmd{words: ws})
		}
	}
	return out
}
