package approval

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shells are programs whose -c argument or standard input is a script.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true}

func isShell(name string) bool { return shells[name] }

// runsOther reports whether a program runs another command or a script.
func runsOther(name string) bool {
	switch name {
	case "eval", "find", "trap", "gdb", "git", "parallel":
		return true
	}
	return isShell(name) || wrapperSpecs[name] != nil
}

// commandAlts returns the other readings deny rules check for ws: without
// leading assignments, and for git without its global options.
func commandAlts(ws []word) (alts [][]word, bare []word, gitConfigs []word) {
	bare = ws
	for len(bare) > 0 && bare[0].literal && isAssignment(bare[0].text) {
		bare = bare[1:]
	}
	if len(bare) > 0 && len(bare) < len(ws) {
		alts = append(alts, bare)
	}
	if len(bare) > 0 && bare[0].literal && path.Base(bare[0].text) == "git" {
		g, cfgs := stripGitGlobals(bare)
		if len(g) != len(bare) {
			alts = append(alts, g)
		}
		gitConfigs = cfgs
	}
	return alts, bare, gitConfigs
}

// addCommand records c and whatever it runs: the inner command of wrappers
// (sudo, env, xargs, …) and the scripts of `sh -c`, `eval`, `trap`, `watch`
// and the like. stmt is the statement c belongs to (for its redirections),
// or nil for a command a wrapper runs in some other way.
func (s *shellScript) addCommand(c simpleCmd, stmt *syntax.Stmt, depth int) error {
	alts, ws, gitConfigs := commandAlts(c.words)
	c.alts = append(c.alts, alts...)
	s.cmds = append(s.cmds, c)
	if len(ws) == 0 {
		return nil
	}
	if !ws[0].literal {
		s.markUnknown(fmt.Sprintf("the program name %q is not plain text", ws[0].text))
		return nil
	}
	name := path.Base(ws[0].text)
	args := ws[1:]
	switch name {
	case "cd", "pushd", "popd":
		s.changesDir = true
	case "let":
		s.markNoAllow("arithmetic evaluation can run commands hidden in variables")
	case "test", "[", "printf", "read", "unset", "wait", "getopts", "mapfile", "readarray", "complete", "compgen":
		s.checkNameArgs(name, args)
	}
	if err := s.argWrites(name, ws, depth); err != nil {
		return err
	}
	if !runsOther(name) {
		return nil
	}
	if depth >= maxScriptDepth {
		s.markUnknown(fmt.Sprintf("%s is nested more than %d levels deep", name, maxScriptDepth))
		return nil
	}
	switch {
	case isShell(name):
		return s.shellCommand(name, args, stmt, depth)
	case name == "eval":
		return s.joinedScript("eval", args, depth)
	case name == "trap":
		return s.trapCommand(args, depth)
	case name == "find":
		return s.findCommand(args, depth)
	case name == "gdb":
		return s.gdbCommand(args, stmt, depth)
	case name == "parallel":
		return s.parallelCommand(args, depth)
	case name == "git":
		for _, kv := range gitConfigs {
			script, isScript, uncheckable := gitConfigScript(kv)
			switch {
			case uncheckable:
				s.markUnknown(fmt.Sprintf("git -c %s can make git run programs tact cannot see", kv.text))
			case isScript:
				if err := s.scriptWord("git -c", word{text: script, literal: true}, depth); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return s.wrapperCommand(name, args, stmt, depth)
}

// checkNameArgs catches builtins that evaluate array subscripts in variable
// names (printf -v 'a[$(cmd)]', read, test -v) or run callbacks (mapfile -C).
func (s *shellScript) checkNameArgs(name string, args []word) {
	for _, a := range args {
		if (name == "mapfile" || name == "readarray" || name == "complete" || name == "compgen") &&
			strings.HasPrefix(a.text, "-") && strings.Contains(a.text, "C") && !strings.HasPrefix(a.text, "--") {
			s.markNoAllow(name + " -C runs a command string")
		}
		if strings.Contains(a.text, "[") && strings.ContainsAny(a.text, "$`") {
			s.markNoAllow(name + " evaluates the array subscript in " + a.text + ", which can run commands")
		}
	}
}

// scriptWord analyses w as a script that prog runs.
func (s *shellScript) scriptWord(prog string, w word, depth int) error {
	if !w.literal {
		s.markUnknown(fmt.Sprintf("the script that %s runs is not plain text", prog))
		return nil
	}
	return s.add(w.text, depth+1)
}

// joinedScript runs args joined by spaces as a script (eval, watch).
func (s *shellScript) joinedScript(prog string, args []word, depth int) error {
	var parts []string
	for _, a := range args {
		if !a.literal {
			s.markUnknown(fmt.Sprintf("the script that %s runs is not plain text", prog))
			return nil
		}
		parts = append(parts, a.text)
	}
	if len(parts) == 0 {
		return nil
	}
	return s.add(strings.Join(parts, " "), depth+1)
}

// shellCommand follows `bash [options] -c SCRIPT`, `bash <<< SCRIPT` and
// `bash FILE`.
func (s *shellScript) shellCommand(name string, args []word, stmt *syntax.Stmt, depth int) error {
	sawC, sawS := false, false
	i := 0
options:
	for ; i < len(args); i++ {
		a := args[i]
		t := a.text
		if !a.literal {
			s.markUnknown(fmt.Sprintf("an argument of %s is not plain text, so its script is unknown", name))
			return nil
		}
		switch {
		case t == "--" || t == "-":
			i++
			break options
		case strings.HasPrefix(t, "--"):
			switch t {
			case "--rcfile", "--init-file":
				i++
			case "--debugger", "--dump-po-strings", "--dump-strings", "--help", "--login", "--noediting",
				"--noprofile", "--norc", "--posix", "--pretty-print", "--restricted", "--verbose", "--version":
			default:
				s.markUnknown(fmt.Sprintf("%s has an option tact does not know (%q), so its script is unknown", name, t))
				return nil
			}
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			for _, ch := range t[1:] {
				switch {
				case ch == 'c':
					sawC = true
				case ch == 's':
					sawS = true
				case ch == 'o' || ch == 'O':
					i++
				case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
				default:
					s.markUnknown(fmt.Sprintf("%s has an option tact does not know (%q), so its script is unknown", name, t))
					return nil
				}
			}
		default:
			break options
		}
	}
	switch {
	case sawC:
		if i >= len(args) {
			return nil // bash: -c: option requires an argument
		}
		return s.scriptWord(name+" -c", args[i], depth)
	case !sawS && i < len(args):
		return nil // a script file: the shell runs whatever the file holds
	}
	script, ok := stdinScript(stmt)
	if !ok {
		s.markUnknown(fmt.Sprintf("%s reads its script from standard input (a pipe, a file or the terminal), which tact cannot see", name))
		return nil
	}
	return s.add(script, depth+1)
}

// trapCommand parses the action of `trap ACTION SIGNAL…`.
func (s *shellScript) trapCommand(args []word, depth int) error {
	i := 0
	for i < len(args) && args[i].literal && strings.HasPrefix(args[i].text, "-") && args[i].text != "-" {
		i++
		if args[i-1].text == "--" {
			break
		}
	}
	ops := args[i:]
	if len(ops) < 2 || (ops[0].literal && (ops[0].text == "-" || isDigits(ops[0].text))) {
		return nil // printing, resetting or a list of signals
	}
	return s.scriptWord("trap", ops[0], depth)
}

// findCommand follows find's -exec, -execdir, -ok and -okdir. -delete
// counts as a simple command `rm` (so deny rules on rm see it and an allow
// rule must cover rm), and -fprint, -fprint0, -fprintf and -fls write the
// file they name.
func (s *shellScript) findCommand(args []word, depth int) error {
	deleted := false
	for i := 0; i < len(args); i++ {
		switch args[i].text {
		case "-delete":
			if !deleted {
				deleted = true
				if err := s.addCommand(simpleCmd{words: []word{{text: "rm", literal: true}}}, nil, depth+1); err != nil {
					return err
				}
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			opt := args[i].text
			if i+1 < len(args) {
				i++
				s.writeArg(args[i], depth, false)
			}
			if opt == "-fprintf" {
				i++ // the format
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].text != ";" && args[j].text != "+" {
				j++
			}
			if j > i+1 {
				inner := args[i+1 : j]
				runner := s.extraArgs
				for _, w := range inner {
					if strings.Contains(w.text, "{}") {
						runner = "find " + args[i].text // {} is replaced by the files found
					}
				}
				if err := s.withExtraArgs(runner, func() error {
					return s.addCommand(simpleCmd{words: inner}, nil, depth+1)
				}); err != nil {
					return err
				}
			}
			i = j
		}
	}
	return nil
}

// gdbCommand follows `gdb --args PROGRAM …` and `gdb PROGRAM`; debugger
// commands (-ex, -x) can run shell commands, so they make it unknown.
func (s *shellScript) gdbCommand(args []word, stmt *syntax.Stmt, depth int) error {
	values := map[string]bool{"ex": true, "iex": true, "x": true, "ix": true, "eval-command": true,
		"init-eval-command": true, "command": true, "init-command": true, "p": true, "pid": true, "cd": true,
		"d": true, "directory": true, "s": true, "symbols": true, "e": true, "exec": true, "se": true, "c": true,
		"core": true, "b": true, "l": true, "data-directory": true, "D": true, "tty": true, "i": true, "interpreter": true}
	runsCommands := map[string]bool{"ex": true, "iex": true, "x": true, "ix": true, "eval-command": true,
		"init-eval-command": true, "command": true, "init-command": true}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.literal {
			s.markUnknown("an argument of gdb is not plain text, so what it runs is unknown")
			return nil
		}
		if !strings.HasPrefix(a.text, "-") {
			return s.addCommand(simpleCmd{words: args[i : i+1]}, nil, depth+1)
		}
		opt, _, hasVal := strings.Cut(strings.TrimLeft(a.text, "-"), "=")
		if opt == "args" {
			if i+1 < len(args) {
				return s.addCommand(simpleCmd{words: args[i+1:]}, stmt, depth+1)
			}
			return nil
		}
		if runsCommands[opt] {
			s.markUnknown("gdb " + a.text + " runs debugger commands, which can run shell commands")
		}
		if values[opt] && !hasVal {
			i++
		}
	}
	return nil
}

// wrapperCommand follows the programs of wrapperSpecs.
func (s *shellScript) wrapperCommand(name string, args []word, stmt *syntax.Stmt, depth int) error {
	sp := wrapperSpecs[name]
	p := parseWrapper(name, sp, args)
	if p.why != "" {
		s.markUnknown(p.why)
		return nil
	}
	switch name {
	case "sudo", "doas":
		if len(p.inner) == 0 && (p.seen["shell"] || p.seen["login"] || p.seen["s"]) {
			s.markUnknown(name + " starts a shell that reads commands tact cannot see")
			return nil
		}
	case "env":
		if v, ok := p.value("split-string"); ok {
			return s.envSplit(v, args, stmt, depth)
		}
	case "watch":
		if !p.seen["exec"] {
			return s.joinedScript("watch", p.operands, depth)
		}
	case "su", "runuser":
		for _, v := range p.values {
			if v.name == "command" || v.name == "session-command" {
				if err := s.scriptWord(name+" -c", v.val, depth); err != nil {
					return err
				}
			}
		}
		if name == "runuser" && p.seen["user"] {
			break
		}
		// su [options] [USER [ARG…]]: the ARGs go to the user's shell.
		if len(p.operands) > 1 {
			return s.shellCommand(name, p.operands[1:], nil, depth)
		}
		if _, ok := p.value("command"); !ok {
			s.markUnknown(name + " starts a shell that reads commands tact cannot see")
		}
		return nil
	case "script":
		if v, ok := p.value("command"); ok {
			return s.scriptWord("script -c", v.val, depth)
		}
		s.markUnknown("script starts a shell that reads commands tact cannot see")
		return nil
	case "flock":
		if len(p.inner) > 0 && p.inner[0].literal && (p.inner[0].text == "-c" || p.inner[0].text == "--command") {
			if len(p.inner) > 1 {
				return s.scriptWord("flock -c", p.inner[1], depth)
			}
			return nil
		}
		if v, ok := p.value("command"); ok {
			return s.scriptWord("flock -c", v.val, depth)
		}
	}
	if len(p.inner) > 0 {
		if name == "xargs" {
			return s.withExtraArgs("xargs", func() error { return s.addCommand(simpleCmd{words: p.inner}, stmt, depth+1) })
		}
		return s.addCommand(simpleCmd{words: p.inner}, stmt, depth+1)
	}
	return nil
}

// envSplit follows `env -S 'STRING' ARGS`: STRING is split into words that
// take the option's place, as env does.
func (s *shellScript) envSplit(v optValueAt, args []word, stmt *syntax.Stmt, depth int) error {
	if !v.val.literal || strings.ContainsAny(v.val.text, "\\$") {
		s.markUnknown("the string of env -S is not plain text, so the command it runs is unknown")
		return nil
	}
	split, ok := splitPlain(v.val.text)
	if !ok {
		s.markUnknown("the string of env -S is not a plain list of words, so the command it runs is unknown")
		return nil
	}
	words := []word{{text: "env", literal: true}}
	words = append(words, split...)
	words = append(words, args[v.next:]...)
	return s.addCommand(simpleCmd{words: words}, stmt, depth+1)
}

// splitPlain splits text into words with shell quoting, when it is a single
// simple command of literal words.
func splitPlain(text string) ([]word, bool) {
	f, err := parseScript(text)
	if err != nil || len(f.Stmts) > 1 {
		return nil, false
	}
	if len(f.Stmts) == 0 {
		return nil, true
	}
	st := f.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || len(ce.Assigns) > 0 || st.Background || st.Negated {
		return nil, false
	}
	var out []word
	for _, a := range ce.Args {
		w := wordOf(a)
		if !w.literal {
			return nil, false
		}
		out = append(out, w)
	}
	return out, true
}
