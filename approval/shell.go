package approval

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxScriptDepth limits how deep `bash -c '…'`, `eval '…'` and wrappers are
// followed.
const maxScriptDepth = 8

// simpleCmd is one simple command found in a shell script.
type simpleCmd struct {
	words []word
	// alts are other readings of the command that deny and ask rules also
	// check: without its leading assignments (X=1 rm), without git's global
	// options (git -C dir push). Allow rules only look at words.
	alts [][]word
}

// String shows the command's words, with unknown words as written.
func (c simpleCmd) String() string {
	parts := make([]string, len(c.words))
	for i, w := range c.words {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

// writeTarget is the file a redirection writes.
type writeTarget struct {
	text    string
	literal bool // no expansion, no leading ~
	nested  bool // found in a nested script (bash -c, eval), whose directory may differ
	chdir   bool // the program changes directory first (git -C, go -C, tar -C a -C b)
}

// shellScript is the result of analysing a `command` argument.
type shellScript struct {
	cmds []simpleCmd
	// writes lists files written by redirections (> file, >> file, &> file)
	// and by options and operands (sort -o FILE, cp's destination, …).
	writes []writeTarget
	// noAllow lists why no allow rule may cover the script: expansions that
	// can run code hidden in variables (${x=…}, ${x@P}, $((…)), ((…))).
	noAllow []string
	// unknown lists commands whose program could not be determined (a
	// wrapper with an unknown option, `bash -c "$X"`, a shell reading its
	// script from a pipe): they could be anything, so no allow rule covers
	// them and every deny or ask rule with a command counts as matching.
	unknown []string
	// changesDir is set when the script runs cd, pushd or popd, so relative
	// redirection targets may not be relative to the workspace.
	changesDir bool
	// extraArgs names the runner (xargs, find -exec … {}, parallel) while
	// the command it gives arguments tact cannot see is being added.
	extraArgs string
}

// withExtraArgs adds a command to which runner adds arguments at run time.
func (s *shellScript) withExtraArgs(runner string, add func() error) error {
	prev := s.extraArgs
	s.extraArgs = runner
	defer func() { s.extraArgs = prev }()
	return add()
}

// analyzeShell parses src as bash and collects every simple command.
func analyzeShell(src string) (shellScript, error) {
	var s shellScript
	err := s.add(src, 0)
	return s, err
}

func (s *shellScript) markUnknown(why string) {
	s.unknown = append(s.unknown, why)
}

func (s *shellScript) markNoAllow(why string) {
	for _, w := range s.noAllow {
		if w == why {
			return
		}
	}
	s.noAllow = append(s.noAllow, why)
}

func parseScript(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

func (s *shellScript) add(src string, depth int) error {
	f, err := parseScript(src)
	if err != nil {
		return fmt.Errorf("parse shell command: %w", err)
	}
	var walkErr error
	syntax.Walk(f, func(n syntax.Node) bool {
		if walkErr != nil {
			return false
		}
		switch x := n.(type) {
		case *syntax.Stmt:
			if ce, ok := x.Cmd.(*syntax.CallExpr); ok {
				walkErr = s.callExpr(ce, x, depth)
			}
		case *syntax.DeclClause:
			ws := []word{{text: x.Variant.Value, literal: true}}
			for _, a := range x.Args {
				ws = append(ws, assignWord(a))
			}
			s.cmds = append(s.cmds, simpleCmd{words: ws})
		case *syntax.Redirect:
			if t, ok := redirectTarget(x); ok {
				t.nested = depth > 0
				s.writes = append(s.writes, t)
			}
		case *syntax.ParamExp:
			if !plainParam(x) {
				s.markNoAllow("a ${…} expansion with an operator can assign variables or run code")
			}
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.CStyleLoop:
			s.markNoAllow("arithmetic evaluation can run commands hidden in variables")
		case *syntax.Assign:
			if x.Index != nil {
				s.markNoAllow("an array subscript is evaluated as arithmetic, which can run commands")
			}
		case *syntax.ArrayElem:
			if x.Index != nil {
				s.markNoAllow("an array subscript is evaluated as arithmetic, which can run commands")
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				if !digitsWord(x.X) || !digitsWord(x.Y) {
					s.markNoAllow("[[ … -eq … ]] evaluates arithmetic, which can run commands hidden in variables")
				}
			}
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
				s.markNoAllow("[[ -v … ]] evaluates array subscripts, which can run commands")
			}
		}
		return true
	})
	return walkErr
}

func (s *shellScript) callExpr(ce *syntax.CallExpr, stmt *syntax.Stmt, depth int) error {
	var ws []word
	for _, a := range ce.Assigns {
		ws = append(ws, assignWord(a))
	}
	if len(ce.Args) == 0 {
		s.cmds = append(s.cmds, simpleCmd{words: ws})
		return nil
	}
	for _, a := range ce.Args {
		ws = append(ws, wordOf(a))
	}
	return s.addCommand(simpleCmd{words: ws}, stmt, depth)
}

// plainParam reports whether p is $NAME or ${NAME} without any operator.
func plainParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Flags == nil &&
		!p.Excl && !p.Length && !p.Width && !p.IsSet &&
		p.Split == syntax.OptUnset && p.GlobSubst == syntax.OptUnset && p.RcExpand == syntax.OptUnset &&
		p.NestedParam == nil && p.Index == nil &&
		len(p.Modifiers) == 0 && p.Slice == nil &&
		p.Repl == nil && p.Names == 0 && p.Exp == nil
}

func digitsWord(e syntax.TestExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	ww := wordOf(w)
	return ww.literal && isDigits(strings.TrimPrefix(ww.text, "-"))
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
func redirectTarget(r *syntax.Redirect) (writeTarget, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.DplOut:
	default:
		return writeTarget{}, false
	}
	if r.Word == nil {
		return writeTarget{}, false
	}
	w := wordOf(r.Word)
	if r.Op == syntax.DplOut && w.literal && (w.text == "-" || isDigits(strings.TrimSuffix(w.text, "-"))) {
		return writeTarget{}, false // 2>&1 duplicates a descriptor
	}
	if w.literal && w.text == "/dev/null" {
		return writeTarget{}, false
	}
	lit := w.literal
	if len(r.Word.Parts) > 0 {
		if l, ok := r.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "~") {
			lit = false // tilde expansion: ~/x is in the home folder
		}
	}
	return writeTarget{text: w.text, literal: lit}, true
}

// stdinScript returns the script a shell without -c reads from standard
// input, when the statement feeds it a literal here-document or here-string.
func stdinScript(stmt *syntax.Stmt) (string, bool) {
	if stmt == nil {
		return "", false
	}
	var last *syntax.Redirect
	for _, r := range stmt.Redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			last = r
		}
	}
	if last == nil {
		return "", false
	}
	switch last.Op {
	case syntax.WordHdoc:
		w := wordOf(last.Word)
		return w.text, w.literal
	case syntax.Hdoc, syntax.DashHdoc:
		if last.Hdoc == nil {
			return "", true
		}
		quoted := false
		for _, p := range last.Word.Parts {
			if _, ok := p.(*syntax.Lit); !ok {
				quoted = true
			} else if strings.ContainsRune(p.(*syntax.Lit).Value, '\\') {
				quoted = true
			}
		}
		var b strings.Builder
		for _, p := range last.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return "", false
			}
			if quoted {
				b.WriteString(l.Value)
			} else {
				b.WriteString(unescapeDouble(l.Value))
			}
		}
		return b.String(), true
	}
	return "", false
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
			alts, _, _ := commandAlts(ws)
			out = append(out, simpleCmd{words: ws, alts: alts})
		}
	}
	return out
}
