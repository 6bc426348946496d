package approval

import (
	"fmt"
	"strings"
)

// argWrites records the files a command writes through its options and
// operands (sort -o, cp's destination, go test -coverprofile, …) and the
// programs its options run (go test -exec, go vet -vettool, rg --pre,
// sort --compress-program, tar -I). ws are the command's words without
// leading assignments; name is the program's base name.
func (s *shellScript) argWrites(name string, ws []word, depth int) error {
	args := ws[1:]
	sp := writeSpecs[name]
	switch {
	case sp != nil, name == "go", name == "git", name == "dd", name == "find":
	default:
		return nil
	}
	if s.extraArgs != "" {
		s.markNoAllow(fmt.Sprintf("%s adds arguments to %s at run time, so the files %s writes are unknown", s.extraArgs, name, name))
	}
	for _, a := range args {
		if !a.literal && mayBecomeOption(a.text) {
			s.markNoAllow(fmt.Sprintf("an argument of %s is not plain text (%s), so it may be an option that writes a file or runs a program", name, a.text))
			break
		}
	}
	switch name {
	case "go":
		return s.goWrites(args, depth)
	case "git":
		return s.gitWrites(ws, depth)
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.text, "of="); ok {
				s.writeArg(word{text: v, literal: a.literal}, depth, false)
			}
		}
		return nil
	case "find":
		return nil // findCommand reads -delete, -fprint and the like
	}
	if name == "tar" {
		args = tarOldStyle(sp, args)
	}
	p := parseArgs(sp, args)
	if sp.strict && len(p.unknown) > 0 {
		s.markNoAllow(fmt.Sprintf("%s has an option tact does not know (%s), so which files it writes is unknown", name, p.unknown[0]))
	}
	for _, v := range p.values {
		if why, ok := sp.unsafe[v.name]; ok {
			s.markNoAllow(why)
		}
		if err := s.optionValue(name, sp, v, depth); err != nil {
			return err
		}
	}
	ops := p.operands
	switch sp.operands {
	case opsAll, opsMove:
		s.writeArgs(ops, depth)
	case opsAllButFirst:
		if len(ops) > 1 {
			s.writeArgs(ops[1:], depth)
		}
	case opsLast:
		switch {
		case len(p.all("target-directory")) > 0:
		case name == "install" && p.seen["directory"]:
			s.writeArgs(ops, depth)
		case len(ops) > 1:
			s.writeArg(ops[len(ops)-1], depth, false)
		case len(ops) == 1:
			s.writeArg(word{text: ".", literal: true}, depth, false) // ln -s TARGET: a link in the cwd
		}
	case opsSed:
		if p.seen["in-place"] {
			if p.seen["expression"] || p.seen["file"] {
				s.writeArgs(ops, depth)
			} else if len(ops) > 1 {
				s.writeArgs(ops[1:], depth)
			}
		}
	}
	switch name {
	case "tar":
		return s.tarWrites(p, depth)
	case "curl":
		for _, v := range p.all("write-out") {
			if strings.Contains(v.text, "%output{") {
				s.markNoAllow("curl -w %output{…} writes to a file tact does not check")
			}
		}
		if (p.seen["remote-name"] || p.seen["remote-name-all"] || p.seen["remote-header-name"]) && !p.seen["output-dir"] {
			s.writeArg(word{text: ".", literal: true}, depth, false)
		}
	case "wget":
		if !p.seen["output-document"] && !p.seen["directory-prefix"] {
			s.writeArg(word{text: ".", literal: true}, depth, false)
		}
	}
	return nil
}

// mayBecomeOption reports whether a word with expansions may expand to an
// option: it holds $… (a variable or command substitution) or a brace
// expansion ({a,b}, {1..3}). Globs expand to file names, which do not start
// with "-" unless they are in the current folder.
func mayBecomeOption(text string) bool {
	if strings.Contains(text, "$") {
		return true
	}
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			return false
		}
		text = text[i+1:]
		j := strings.IndexByte(text, '}')
		if j < 0 {
			return false
		}
		if strings.Contains(text[:j], ",") || strings.Contains(text[:j], "..") {
			return true
		}
	}
}

// optionValue handles one option value of a writeSpecs program.
func (s *shellScript) optionValue(prog string, sp *writeSpec, v optValueAt, depth int) error {
	switch {
	case sp.files[v.name]:
		s.writeArg(v.val, depth, false)
	case sp.progs[v.name]:
		return s.runProgram(prog+" --"+v.name, v.val, depth)
	case sp.cmdLines[v.name]:
		return s.runCmdLine(prog+" --"+v.name, v.val, depth)
	case sp.scripts[v.name]:
		return s.scriptWord(prog+" --"+v.name, v.val, depth)
	}
	return nil
}

// writeArg records a file the command writes. A leading ~ counts as an
// expansion (bash expands it in words and after "=" in --opt=~/x).
func (s *shellScript) writeArg(w word, depth int, chdir bool) {
	if w.literal && w.text == "-" {
		return // standard output
	}
	s.writes = append(s.writes, writeTarget{
		text: w.text, literal: w.literal && !strings.HasPrefix(w.text, "~"),
		nested: depth > 0, chdir: chdir,
	})
}

func (s *shellScript) writeArgs(ws []word, depth int) {
	for _, w := range ws {
		s.writeArg(w, depth, false)
	}
}

// runProgram records the program an option names (go vet -vettool=PATH,
// rg --pre PATH) as a simple command of its own.
func (s *shellScript) runProgram(what string, v word, depth int) error {
	if depth >= maxScriptDepth {
		s.markUnknown(fmt.Sprintf("%s is nested more than %d levels deep", what, maxScriptDepth))
		return nil
	}
	return s.addCommand(simpleCmd{words: []word{v}}, nil, depth+1)
}

// runCmdLine records the command line an option names (go test -exec
// 'CMD ARGS', -toolexec), split into words as the program does.
func (s *shellScript) runCmdLine(what string, v word, depth int) error {
	if depth >= maxScriptDepth {
		s.markUnknown(fmt.Sprintf("%s is nested more than %d levels deep", what, maxScriptDepth))
		return nil
	}
	if !v.literal {
		s.markUnknown(fmt.Sprintf("the command that %s runs is not plain text", what))
		return nil
	}
	words, ok := splitPlain(v.text)
	if !ok {
		s.markUnknown(fmt.Sprintf("the command that %s runs is not a plain list of words", what))
		return nil
	}
	if len(words) == 0 {
		return nil
	}
	return s.addCommand(simpleCmd{words: words}, nil, depth+1)
}

// tarOldStyle rewrites tar's old option style (`tar xzf a.tgz -C d`: the
// first word is a bundle of letters whose values follow in order) into
// separate options.
func tarOldStyle(sp *writeSpec, args []word) []word {
	if len(args) == 0 || !args[0].literal || args[0].text == "" || strings.HasPrefix(args[0].text, "-") {
		return args
	}
	for _, r := range args[0].text {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return args
		}
	}
	var out []word
	next := 1
	for _, r := range args[0].text {
		key := "-" + string(r)
		out = append(out, word{text: key, literal: true})
		if sp.opts.opts[key] == optValue && next < len(args) {
			out = append(out, args[next])
			next++
		}
	}
	return append(out, args[next:]...)
}

// tarWrites records what tar writes: the folder it extracts into (-C, or
// the current one), the archive it creates or changes (-f), and the
// programs it runs.
func (s *shellScript) tarWrites(p parsedArgs, depth int) error {
	if p.seen["extract"] {
		dirs := p.all("directory")
		if len(dirs) == 0 {
			s.writeArg(word{text: ".", literal: true}, depth, false)
		}
		for i, d := range dirs {
			s.writeArg(d, depth, i > 0) // a relative -C is relative to the one before
		}
		if p.seen["absolute-names"] {
			s.markNoAllow("tar -P extracts to the paths stored in the archive, which may be anywhere")
		}
	}
	if p.seen["create"] || p.seen["append"] || p.seen["update"] || p.seen["catenate"] || p.seen["delete"] {
		for _, f := range p.all("file") {
			s.writeArg(f, depth, false)
		}
	}
	for _, f := range p.all("file") {
		if host, _, ok := strings.Cut(f.text, ":"); ok && !strings.Contains(host, "/") && !p.seen["force-local"] {
			s.markNoAllow("tar -f HOST:FILE runs a remote shell")
		}
	}
	for _, v := range p.all("checkpoint-action") {
		if script, ok := strings.CutPrefix(v.text, "exec="); ok {
			if err := s.scriptWord("tar --checkpoint-action=exec", word{text: script, literal: v.literal}, depth); err != nil {
				return err
			}
		}
	}
	if p.seen["remove-files"] {
		return s.addCommand(simpleCmd{words: []word{{text: "rm", literal: true}}}, nil, depth+1)
	}
	return nil
}

// goValueFlags are the go command's flags that take a value (as -f v).
var goValueFlags = set("o", "p", "asmflags", "buildmode", "compiler", "gccgoflags", "gcflags", "installsuffix",
	"ldflags", "mod", "modfile", "overlay", "pgo", "pkgdir", "tags", "toolexec", "exec", "coverpkg", "covermode",
	"coverprofile", "cpuprofile", "memprofile", "memprofilerate", "blockprofile", "blockprofilerate",
	"mutexprofile", "mutexprofilefraction", "trace", "outputdir", "run", "skip", "bench", "benchtime", "count",
	"cpu", "parallel", "timeout", "list", "fuzz", "fuzztime", "fuzzminimizetime", "shuffle", "vettool", "vet", "f",
	"testlogfile", "gocoverdir", "fuzzcachedir", "debug-actiongraph", "debug-trace", "debug-runtime-trace", "C")

// goFileFlags are the go command's (and test binaries') flags whose value
// is a file or folder written.
var goFileFlags = set("o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace",
	"outputdir", "modfile", "pkgdir", "testlogfile", "gocoverdir", "fuzzcachedir", "debug-actiongraph",
	"debug-trace", "debug-runtime-trace")

// goProfileFlags are written inside -outputdir when it is given.
var goProfileFlags = set("coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace")

// goWrites reads the go command's flags: -o and the profile flags write
// files; -exec and -toolexec run a command line; -vettool runs a program.
// Flags are looked for everywhere, also after -args (the test binary's
// -test.* flags).
func (s *shellScript) goWrites(args []word, depth int) error {
	chdir, sub := false, 0
	if len(args) > 0 && args[0].literal {
		switch t := strings.TrimPrefix(args[0].text, "-"); {
		case t == "-C" || t == "C":
			chdir, sub = true, 2
		case strings.HasPrefix(t, "-C=") || strings.HasPrefix(t, "C="):
			chdir, sub = true, 1
		}
	}
	if sub < len(args) && args[sub].text == "env" {
		for _, a := range args[sub:] {
			if a.text == "-w" || a.text == "-u" {
				s.markNoAllow("go env -w changes the go environment file outside the workspace (GOFLAGS there changes what later go commands run)")
			}
		}
	}
	type flag struct {
		name string
		val  word
		test bool
	}
	var flags []flag
	outputDir := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		if !a.literal || !strings.HasPrefix(a.text, "-") || a.text == "-" || a.text == "--" {
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a.text, "-"), "=")
		bare, test := strings.CutPrefix(name, "test.")
		v := word{text: val, literal: a.literal}
		if goValueFlags[bare] && !hasVal {
			if j+1 >= len(args) {
				break
			}
			j++
			v = args[j]
		}
		flags = append(flags, flag{name: bare, val: v, test: test})
		outputDir = outputDir || bare == "outputdir"
	}
	for _, f := range flags {
		switch {
		case f.name == "C":
		case goFileFlags[f.name]:
			// The test binary runs in the package's folder; profiles go
			// into -outputdir when it is given.
			s.writeArg(f.val, depth, chdir || f.test || outputDir && goProfileFlags[f.name])
		case f.name == "exec" || f.name == "toolexec":
			if err := s.runCmdLine("go -"+f.name, f.val, depth); err != nil {
				return err
			}
		case f.name == "vettool":
			if err := s.runProgram("go vet -vettool", f.val, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// gitWrites reads the options of git subcommands that write files
// (--output for the diff family, format-patch -o, archive -o) or run
// commands (grep -O, difftool -x, rebase --exec). Git accepts unambiguous
// abbreviations of long options, so any prefix of "output" counts.
func (s *shellScript) gitWrites(ws []word, depth int) error {
	g, _ := stripGitGlobals(ws)
	if len(g) < 2 || !g[1].literal {
		return nil
	}
	chdir := false
	for _, w := range ws[1 : len(ws)-len(g)+1] {
		if strings.HasPrefix(w.text, "-C") {
			chdir = true
		}
	}
	sub, rest := g[1].text, g[2:]
	value := func(j int, val string, hasVal bool) (word, int, bool) {
		if hasVal {
			return word{text: val, literal: rest[j].literal}, j, true
		}
		if j+1 < len(rest) {
			return rest[j+1], j + 1, true
		}
		return word{}, j, false
	}
	for j := 0; j < len(rest); j++ {
		t := rest[j].text
		if t == "--" && rest[j].literal {
			break
		}
		if !rest[j].literal || !strings.HasPrefix(t, "-") || t == "-" {
			continue
		}
		var name, val string
		var hasVal bool
		long := strings.HasPrefix(t, "--")
		if long {
			name, val, hasVal = strings.Cut(t[2:], "=")
		} else {
			name, val = t[1:2], t[2:]
			hasVal = val != ""
		}
		switch {
		case long && len(name) >= 2 && (strings.HasPrefix("output", name) ||
			sub == "format-patch" && strings.HasPrefix("output-directory", name)),
			!long && name == "o" && (sub == "format-patch" || sub == "archive"):
			v, next, ok := value(j, val, hasVal)
			if j = next; ok {
				s.writeArg(v, depth, chdir)
			}
		case sub == "grep" && (!long && name == "O" || long && len(name) >= 3 && strings.HasPrefix("open-files-in-pager", name)):
			if hasVal {
				if err := s.runCmdLine("git grep -O", word{text: val, literal: rest[j].literal}, depth); err != nil {
					return err
				}
			}
		case sub == "difftool" && (!long && name == "x" || long && len(name) >= 2 && strings.HasPrefix("extcmd", name)),
			sub == "rebase" && (!long && name == "x" || long && len(name) >= 2 && strings.HasPrefix("exec", name)):
			v, next, ok := value(j, val, hasVal)
			if j = next; !ok {
				continue
			}
			if err := s.scriptWord("git "+sub+" "+t, v, depth); err != nil {
				return err
			}
		}
	}
	return nil
}

// parallelSpec lists GNU parallel's options tact knows; one it does not
// know makes the command unknown (many of parallel's options run commands).
var parallelSpec = newSpec("j|P|jobs|max-procs=", "k|keep-order", "X", "m", "q|quote", "0|null", "a|arg-file=",
	"d|delimiter=", "I=", "n|max-args=", "N=", "L|max-lines=", "i|replace?", "E=", "e|eof?", "r|no-run-if-empty",
	"t|verbose", "v", "g|group", "u|ungroup", "line-buffer", "tag", "tagstring=", "progress", "bar", "eta",
	"dry-run", "will-cite", "shuf", "halt|halt-on-error=", "timeout=", "delay=", "retries=", "C|colsep=",
	"header=", "plus", "trim=", "xapply|link", "s|max-chars=", "nice=", "memfree=", "no-notice", "joblog=",
	"res|results=", "keep-order", "help", "version")

// parallelCommand follows `parallel [options] COMMAND ::: ARGS`: COMMAND is
// run through a shell with the arguments put in.
func (s *shellScript) parallelCommand(args []word, depth int) error {
	p := parseWrapper("parallel", parallelSpec, args)
	if p.why != "" {
		s.markUnknown(p.why)
		return nil
	}
	for _, v := range p.values {
		if v.name == "joblog" || v.name == "results" {
			s.writeArg(v.val, depth, false)
		}
	}
	var cmd []word
	for _, w := range p.operands {
		if w.literal && (w.text == ":::" || w.text == "::::" || w.text == ":::+" || w.text == "::::+") {
			break
		}
		cmd = append(cmd, w)
	}
	switch {
	case len(cmd) == 0:
		s.markUnknown("parallel without a command runs its input as commands, which tact cannot see")
		return nil
	case strings.Contains(cmd[0].text, "{"):
		s.markUnknown("the program parallel runs comes from its input")
		return nil
	}
	for _, w := range cmd {
		if strings.Contains(w.text, "{=") {
			s.markUnknown("parallel {= … =} runs Perl code")
			return nil
		}
	}
	return s.withExtraArgs("parallel", func() error { return s.joinedScript("parallel", cmd, depth) })
}
