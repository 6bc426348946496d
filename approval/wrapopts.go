package approval

import (
	"fmt"
	"strings"
)

// optKind says whether an option takes a value.
type optKind int

const (
	optFlag     optKind = iota // --verbose, -v
	optValue                   // --user root, --user=root, -u root, -uroot
	optOptional                // --preserve-env[=list], -e[eof]: only an attached value
)

// wrapSpec describes the command line of a program that runs another
// program, so the inner command can be found without guessing.
type wrapSpec struct {
	opts  map[string]optKind // "-u", "--user"
	canon map[string]string  // "-u", "--user" → "user"
	// positional is the number of operands before the command (timeout's
	// duration, chroot's new root, flock's lock file).
	positional int
	// anyLong accepts every --name or --name=value as a flag (firejail,
	// valgrind: their values are always attached with "=").
	anyLong bool
	// assignments skips NAME=value words before the command (env, sudo).
	assignments bool
	// numeric accepts -N as a flag (nice -5).
	numeric bool
	// dashAlone accepts a lone "-" as a flag (env -, su -).
	dashAlone bool
}

// newSpec builds a wrapSpec from entries such as "u|user=" (short -u and
// long --user, taking a value), "E|preserve-env?" (optional attached value)
// or "n|non-interactive" (a flag). The last name is the canonical one.
func newSpec(entries ...string) *wrapSpec {
	sp := &wrapSpec{opts: map[string]optKind{}, canon: map[string]string{}}
	for _, e := range entries {
		kind := optFlag
		switch {
		case strings.HasSuffix(e, "="):
			kind, e = optValue, strings.TrimSuffix(e, "=")
		case strings.HasSuffix(e, "?"):
			kind, e = optOptional, strings.TrimSuffix(e, "?")
		}
		names := strings.Split(e, "|")
		for _, n := range names {
			key := "--" + n
			if len(n) == 1 {
				key = "-" + n
			}
			sp.opts[key] = kind
			sp.canon[key] = names[len(names)-1]
		}
	}
	return sp
}

func (sp *wrapSpec) with(f func(*wrapSpec)) *wrapSpec { f(sp); return sp }

// optValueAt is one option with a value seen while parsing.
type optValueAt struct {
	name string
	val  word
	next int // index of the argument after the value
}

// parsedWrapper is what parseWrapper found.
type parsedWrapper struct {
	// inner is the command the wrapper runs, from the first operand after
	// the positional ones; nil when there is none.
	inner []word
	// operands are all the operands (positional ones included).
	operands []word
	values   []optValueAt
	seen     map[string]bool
	// why is set when the options could not be parsed: the inner command is
	// unknown.
	why string
}

func (p parsedWrapper) value(name string) (optValueAt, bool) {
	for _, v := range p.values {
		if v.name == name {
			return v, true
		}
	}
	return optValueAt{}, false
}

// parseWrapper reads a wrapper's options the way getopt_long does for
// programs that stop at the first operand ("+" optstring).
func parseWrapper(prog string, sp *wrapSpec, args []word) parsedWrapper {
	res := parsedWrapper{seen: map[string]bool{}}
	i := 0
	unknown := func(t string) parsedWrapper {
		res.why = fmt.Sprintf("%s has an option tact does not know (%q), so the command it runs is unknown", prog, t)
		return res
	}
	takeValue := func(name string, attached string, hasAttached bool) bool {
		if hasAttached {
			res.values = append(res.values, optValueAt{name: name, val: word{text: attached, literal: args[i].literal}, next: i + 1})
			return true
		}
		if i+1 >= len(args) {
			return false
		}
		i++
		res.values = append(res.values, optValueAt{name: name, val: args[i], next: i + 1})
		return true
	}
options:
	for i < len(args) {
		a := args[i]
		t := a.text
		if !a.literal {
			if strings.HasPrefix(t, "-") {
				return unknown(t)
			}
			if strings.HasPrefix(t, "$") || t == "" {
				res.why = fmt.Sprintf("an argument of %s is not plain text (%s), so it may be an option and the command it runs is unknown", prog, t)
				return res
			}
			break // a glob or the like: an operand
		}
		switch {
		case t == "--":
			i++
			break options
		case t == "-" && sp.dashAlone:
			res.seen["-"] = true
		case sp.assignments && isAssignment(t):
		case !strings.HasPrefix(t, "-") || t == "-":
			break options
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t[2:], "=")
			key, ok := sp.longMatch(name)
			if !ok {
				if sp.anyLong {
					break
				}
				return unknown(t)
			}
			c := sp.canon[key]
			res.seen[c] = true
			switch sp.opts[key] {
			case optFlag:
				if hasVal {
					return unknown(t)
				}
			case optValue:
				if !takeValue(c, val, hasVal) {
					i = len(args)
					break options
				}
			case optOptional:
				if hasVal {
					res.values = append(res.values, optValueAt{name: c, val: word{text: val, literal: true}, next: i + 1})
				}
			}
		default:
			for j := 1; j < len(t); j++ {
				key := "-" + t[j:j+1]
				kind, ok := sp.opts[key]
				if !ok {
					if sp.numeric && t[j] >= '0' && t[j] <= '9' {
						continue
					}
					return unknown(t)
				}
				c := sp.canon[key]
				res.seen[c] = true
				if kind == optFlag {
					continue
				}
				rest := t[j+1:]
				if kind == optOptional {
					if rest != "" {
						res.values = append(res.values, optValueAt{name: c, val: word{text: rest, literal: true}, next: i + 1})
					}
					break
				}
				if !takeValue(c, rest, rest != "") {
					i = len(args)
					break options
				}
				break
			}
		}
		i++
	}
	if sp.assignments {
		for i < len(args) && args[i].literal && isAssignment(args[i].text) {
			i++
		}
	}
	if i < len(args) {
		res.operands = args[i:]
	}
	if i+sp.positional < len(args) {
		res.inner = args[i+sp.positional:]
	}
	return res
}

// longMatch finds a long option by its name or an unambiguous prefix of it,
// as getopt_long accepts.
func (sp *wrapSpec) longMatch(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	key := "--" + name
	if _, ok := sp.opts[key]; ok {
		return key, true
	}
	found := ""
	for k := range sp.opts {
		if strings.HasPrefix(k, key) && len(k) > 2 && k[1] == '-' {
			if found != "" && sp.canon[found] != sp.canon[k] {
				return "", false
			}
			found = k
		}
	}
	return found, found != ""
}

// wrapperSpecs lists commands that run another command, with their options.
var wrapperSpecs = map[string]*wrapSpec{
	"sudo": newSpec("A|askpass", "b|background", "B|bell", "C|close-from=", "D|chdir=", "E|preserve-env?",
		"e|edit", "g|group=", "H|set-home", "h|host=", "i|login", "K|remove-timestamp", "k|reset-timestamp",
		"l|list", "N|no-update", "n|non-interactive", "P|preserve-groups", "p|prompt=", "R|chroot=", "r|role=",
		"S|stdin", "s|shell", "T|command-timeout=", "t|type=", "U|other-user=", "u|user=", "V|version",
		"v|validate", "help").with(func(s *wrapSpec) { s.assignments = true }),
	"doas":   newSpec("u=", "C=", "n", "s", "L"),
	"pkexec": newSpec("user=", "disable-internal-agent", "keep-cwd", "help", "version"),
	"env": newSpec("i|ignore-environment", "0|null", "u|unset=", "C|chdir=", "S|split-string=", "v|debug", "P=",
		"block-signal?", "default-signal?", "ignore-signal?", "list-signal-handling", "help", "version").
		with(func(s *wrapSpec) { s.assignments, s.dashAlone = true, true }),
	"nice":    newSpec("n|adjustment=", "help", "version").with(func(s *wrapSpec) { s.numeric = true }),
	"nohup":   newSpec("help", "version"),
	"command": newSpec("p", "v", "V"),
	"builtin": newSpec(),
	"exec":    newSpec("a=", "c", "l"),
	"busybox": newSpec(),
	"time":    newSpec("a|append", "f|format=", "o|output=", "p|portability", "q|quiet", "v|verbose", "help", "V|version"),
	"timeout": newSpec("k|kill-after=", "s|signal=", "v|verbose", "f|foreground", "p|preserve-status", "help", "version").
		with(func(s *wrapSpec) { s.positional = 1 }),
	"ionice": newSpec("c|class=", "n|classdata=", "p|pid=", "P|pgid=", "t|ignore", "u|uid=", "h|help", "V|version"),
	"stdbuf": newSpec("i|input=", "o|output=", "e|error=", "help", "version"),
	"setsid": newSpec("c|ctty", "f|fork", "w|wait", "h|help", "V|version"),
	"chroot": newSpec("userspec=", "groups=", "skip-chdir", "help", "version").with(func(s *wrapSpec) { s.positional = 1 }),
	"xargs": newSpec("0|null", "a|arg-file=", "d|delimiter=", "E=", "e|eof?", "I=", "i|replace?", "L=", "l|max-lines?",
		"n|max-args=", "o|open-tty", "P|max-procs=", "p|interactive", "process-slot-var=", "r|no-run-if-empty",
		"s|max-chars=", "show-limits", "t|verbose", "x|exit", "help", "version"),
	"taskset": newSpec("a|all-tasks", "c|cpu-list", "p|pid", "h|help", "V|version").with(func(s *wrapSpec) { s.positional = 1 }),
	"chrt": newSpec("a|all-tasks", "b|batch", "d|deadline", "e|ext", "f|fifo", "i|idle", "o|other", "r|rr",
		"R|reset-on-fork", "T|sched-runtime=", "P|sched-period=", "D|sched-deadline=", "p|pid", "m|max", "v|verbose",
		"h|help", "V|version").with(func(s *wrapSpec) { s.positional = 1 }),
	"unshare": newSpec("m|mount?", "u|uts?", "i|ipc?", "n|net?", "p|pid?", "U|user?", "C|cgroup?", "T|time?",
		"f|fork", "r|map-root-user", "c|map-current-user", "map-user=", "map-group=", "map-users=", "map-groups=",
		"map-auto", "kill-child?", "mount-proc?", "mount-binfmt?", "propagation=", "setgroups=", "keep-caps",
		"S|setuid=", "G|setgid=", "R|root=", "w|wd=", "monotonic=", "boottime=", "l|load-interp=", "h|help", "V|version"),
	"setpriv": newSpec("d|dump", "nnp|no-new-privs", "inh-caps=", "ambient-caps=", "bounding-set=", "ruid=", "euid=",
		"rgid=", "egid=", "reuid=", "regid=", "clear-groups", "keep-groups", "init-groups", "groups=", "securebits=",
		"pdeathsig=", "selinux-label=", "apparmor-profile=", "landlock-access=", "landlock-rule=", "reset-env",
		"h|help", "V|version"),
	"strace": newSpec("a|columns=", "b|detach-on=", "c|summary-only", "C|summary", "d|debug", "D|daemonize?",
		"e=", "E|env=", "f|follow-forks", "F", "h|help", "i|instruction-pointer", "I|interruptible=", "k|stack-trace",
		"n|syscall-number", "o|output=", "O|summary-wall-clock=", "p|attach=", "P|trace-path=", "q|quiet?",
		"r|relative-timestamps?", "s|string-limit=", "S|summary-sort-by=", "t|absolute-timestamps?", "T|syscall-times?",
		"u|user=", "U|summary-columns=", "v|no-abbrev", "V|version", "w|summary-wall-clock", "x", "X|const-print-style=",
		"y|decode-fds?", "Y|decode-pids?", "z|successful-only", "Z|failed-only", "trace=", "signal=", "status=",
		"seccomp-bpf", "output-separately", "kill-on-exit", "tips?", "silent?", "raw=", "read=", "write=", "verbose=",
		"abbrev=", "inject=", "fault=", "timestamps?", "follow-forks", "output-append-mode", "A"),
	"ltrace": newSpec("a|align=", "A=", "b|no-signals", "c", "C|demangle", "D|debug=", "e=", "f", "F|config=", "h|help",
		"i", "l|library=", "L", "n|indent=", "o|output=", "p=", "r", "s=", "S", "t", "T", "u=", "V|version", "w|where=", "x="),
	"valgrind": newSpec("v|verbose", "q|quiet", "h|help", "d", "s").with(func(s *wrapSpec) { s.anyLong = true }),
	"firejail": newSpec().with(func(s *wrapSpec) { s.anyLong = true }),
	"systemd-run": newSpec("u|unit=", "p|property=", "description=", "slice=", "slice-inherit", "r|remain-after-exit",
		"send-sighup", "service-type=", "uid=", "gid=", "nice=", "working-directory=", "d|same-dir", "E|setenv=",
		"t|pty", "P|pipe", "q|quiet", "v|verbose", "json=", "on-active=", "on-boot=", "on-startup=", "on-unit-active=",
		"on-unit-inactive=", "on-calendar=", "on-clock-change", "on-timezone-change", "path-property=",
		"socket-property=", "timer-property=", "no-block", "wait", "G|collect", "user", "system", "scope", "S|shell",
		"H|host=", "M|machine=", "no-ask-password", "expand-environment=", "ignore-failure", "background=",
		"h|help", "version"),
	"fakeroot":         newSpec("l|lib=", "faked=", "s=", "i=", "u|unknown-is-real", "b=", "h|help", "v|version"),
	"dbus-run-session": newSpec("config-file=", "dbus-daemon=", "help", "version"),
	"catchsegv":        newSpec(),
	"proxychains":      newSpec("q", "f="),
	"proxychains4":     newSpec("q", "f="),
	// These run a string through a shell; their handlers read the values.
	"su": newSpec("c|command=", "session-command=", "f|fast", "g|group=", "G|supp-group=", "l|login",
		"m|p|preserve-environment", "P|pty", "s|shell=", "w|whitelist-environment=", "h|help", "V|version").
		with(func(s *wrapSpec) { s.dashAlone = true }),
	"runuser": newSpec("u|user=", "c|command=", "session-command=", "f|fast", "g|group=", "G|supp-group=", "l|login",
		"m|p|preserve-environment", "P|pty", "s|shell=", "w|whitelist-environment=", "h|help", "V|version").
		with(func(s *wrapSpec) { s.dashAlone = true }),
	"script": newSpec("a|append", "c|command=", "E|echo=", "e|return", "f|flush", "I|log-in=", "O|log-out=",
		"B|log-io=", "T|log-timing=", "t|timing?", "m|logging-format=", "o|output-limit=", "q|quiet", "h|help", "V|version"),
	"flock": newSpec("s|shared", "x|e|exclusive", "u|unlock", "n|nb|nonblock", "w|wait|timeout=", "E|conflict-exit-code=",
		"o|close", "F|no-fork", "verbose", "c|command=", "h|help", "V|version").with(func(s *wrapSpec) { s.positional = 1 }),
	"watch": newSpec("b|beep", "c|color", "C|no-color", "d|differences?", "e|errexit", "g|chgexit", "n|interval=",
		"p|precise", "q|equexit=", "r|no-rerun", "s|shotsfile=", "t|no-title", "w|no-wrap", "x|exec", "h|help", "v|version"),
}

// gitGlobalValue lists git's global options that take a value.
var gitGlobalValue = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--config-env": true, "--super-prefix": true, "--attr-source": true, "--list-cmds": true,
}

// gitGlobalFlag lists git's global options without a value.
var gitGlobalFlag = map[string]bool{
	"--no-pager": true, "--paginate": true, "-p": true, "-P": true, "--bare": true, "--exec-path": true,
	"--no-replace-objects": true, "--literal-pathspecs": true, "--glob-pathspecs": true,
	"--noglob-pathspecs": true, "--icase-pathspecs": true, "--no-optional-locks": true, "--no-advice": true,
	"--no-lazy-fetch": true, "--html-path": true, "--man-path": true, "--info-path": true,
}

// stripGitGlobals returns git's command line without the global options
// before the subcommand (git -C dir -c k=v push → git push), and the values
// of its -c options.
func stripGitGlobals(ws []word) (out []word, configs []word) {
	out = []word{ws[0]}
	i := 1
	for i < len(ws) {
		w := ws[i]
		if !w.literal {
			break
		}
		name, _, hasVal := strings.Cut(w.text, "=")
		switch {
		case gitGlobalValue[name] && !hasVal:
			if w.text == "-c" && i+1 < len(ws) {
				configs = append(configs, ws[i+1])
			}
			i += 2
			continue
		case gitGlobalValue[name] && hasVal && strings.HasPrefix(name, "--"),
			gitGlobalFlag[name]:
			i++
			continue
		}
		break
	}
	if i < len(ws) {
		out = append(out, ws[i:]...)
	}
	return out, configs
}

// gitCommandKeys are config keys whose value git runs as a shell command.
var gitCommandKeys = []string{
	"core.fsmonitor", "core.pager", "core.sshcommand", "core.editor", "core.askpass", "core.gitproxy",
	"sequence.editor", "diff.external", "pager.*", "diff.*.textconv", "diff.*.command", "merge.*.driver",
	"filter.*.clean", "filter.*.smudge", "filter.*.process", "credential.helper", "credential.*.helper",
	"gpg.program", "gpg.*.program", "uploadpack.packobjectshook", "remote.*.receivepack", "remote.*.uploadpack",
	"remote.*.proxy", "http.proxy", "core.alternaterefscommand", "alias.*",
}

// gitUncheckable are config keys that make git run code tact cannot see.
var gitUncheckable = []string{"core.hookspath", "include.path", "includeif.*", "core.worktree", "uploadpack.*"}

// gitConfigScript classifies a `git -c key=value`: a script to check (the
// value of a command key), uncheckable, or harmless.
func gitConfigScript(kv word) (script string, isScript bool, uncheckable bool) {
	if !kv.literal {
		return "", false, true
	}
	key, val, _ := strings.Cut(kv.text, "=")
	key = strings.ToLower(key)
	for _, k := range gitUncheckable {
		if wildMatch(k, key) {
			return "", false, true
		}
	}
	for _, k := range gitCommandKeys {
		if !wildMatch(k, key) {
			continue
		}
		if strings.HasPrefix(key, "alias.") {
			if !strings.HasPrefix(val, "!") {
				return "", false, false
			}
			val = val[1:]
		}
		return val, true, false
	}
	return "", false, false
}
