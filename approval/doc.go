// Package approval decides whether a tool call may run: it implements
// agent.Approver from the `approval:` section of the config, the rules the
// user adds during a session ("allow for session" in the TUI) and the --yes
// flag.
//
// # Order of evaluation
//
//  1. A `path` argument that resolves (after `..` and symlinks) outside the
//     workspace is denied, for local tools (not MCP or native HTTP tools,
//     whose `path` may name something remote).
//  2. Deny rules, in config order; the first that matches decides.
//  3. Ask rules, in config order.
//  4. Allow rules: config rules first, then session rules.
//  5. No rule matched: read-only tools (ReadOnly and not Destructive) are
//     allowed; every other tool gets Config.Default (ask unless set). Tools
//     without annotations, such as MCP tools, count as destructive.
//
// A decision of "ask" goes to the Asker (the TUI). With --yes it becomes
// allow; deny rules still hold because they were checked first. Without an
// Asker (headless) it becomes a deny whose reason names the rule to add.
//
// # Shell commands
//
// A `command` argument is parsed as bash (mvdan.cc/sh). Every simple command
// is collected: in lists (&&, ||, ;), pipelines, subshells, command and
// process substitutions, if/while/for/case bodies, function bodies, and the
// scripts other programs run, parsed recursively: `bash -c '…'` (shell
// options such as -o NAME, -O NAME, --norc and `--` are read properly),
// a literal here-string or here-document fed to a shell without -c
// (`bash <<< '…'`), `eval`, `trap 'ACTION' SIG`, `watch '…'`, `su -c`,
// `runuser -c`, `script -c`, `flock FILE -c`, `env -S '…'`, and the
// string value of `git -c` keys that git runs (alias.x=!…, core.pager,
// core.fsmonitor, …). The command run by wrappers is collected too: sudo,
// doas, env, nice, ionice, timeout, nohup, stdbuf, setsid, chroot, xargs,
// flock, taskset, chrt, unshare, setpriv, strace, ltrace, valgrind,
// firejail, systemd-run, runuser, gdb --args, `find -exec`, GNU parallel
// (its command is run through a shell; without one, or with the program
// or Perl code {= … =} coming from its input, the command is unknown), …; each
// wrapper's options that take a value are known (sudo --user root,
// nice -n 5, timeout -s KILL 5), so the value is not taken for the command.
// A variable assignment (`PATH=x`, `export X=y`) is a simple command of its
// own.
//
// Options that run a program add it as a simple command of its own, so deny
// rules see it and allow rules must cover it: the command line of
// `go test -exec` and `go build -toolexec` (split into words as go does),
// `tar -I`/--use-compress-program and `git grep -O`; the program path of
// `go vet -vettool`, `rg --pre`, `rg --hostname-bin`,
// `sort --compress-program`, `install --strip-program` and tar's
// --rsh-command, --rmt-command and --info-script; the script of
// `tar --to-command`, `tar --checkpoint-action=exec=`, `git rebase --exec`
// and `git difftool --extcmd`. `find -delete` and `tar --remove-files`
// count as a simple command `rm`. Not followed: make (--eval, and every
// Makefile recipe), npm/yarn scripts (--script-shell, package.json), go
// generate, sed scripts (the w and e commands) and awk: allowing them
// allows the code they run.
//
// Some commands cannot be identified: a wrapper with an option tact does not
// know, a program name with $…, `bash -c "$X"`, a shell reading its script
// from a pipe, a file or the terminal (`echo … | bash`, `bash < f.sh`),
// `gdb -ex`, `git -c core.hooksPath=…`. Such a call is never allowed by a
// command rule, and every deny (and ask) rule with a command counts as
// matching it: the deny reason says the command could not be checked
// against the deny rules.
//
// A deny or ask rule matches when ANY simple command matches its pattern,
// also in its other readings: without leading assignments (`X=1 rm` is
// checked as `rm`) and, for git, without git's global options (`git -C x
// -c k=v --no-pager push` is checked as `git push`). The first word is also
// compared by its base name (/bin/rm matches "rm *"), and a word with
// expansions ($VAR, $(…), globs) could be anything, so it matches any
// pattern word.
//
// The call is allowed by command rules only when EVERY simple command
// matches some allow rule, comparing words exactly as written: leading
// assignments stay (`FOO=1 git status` is not covered by "git status *";
// it asks), git's options stay. A word with expansions never matches a fixed
// pattern word; only a trailing "*" covers it, and only when the expansion
// cannot run code: plain $VAR / ${VAR} (quoted or not), $(…) and `…`
// (whose commands are checked on their own), globs and brace expansions.
// Anywhere in the command, a ${…} with an operator (${x=…}, ${x:-…},
// ${x@P}, ${#x}, ${x/a/b}, ${x[i]}, ${!x}, …), an arithmetic expansion or
// command ($((…)), ((…)), let, for ((…)), [[ a -eq b ]], [[ -v a ]]), an
// array subscript in an assignment, or a builtin that evaluates a
// subscript in a name (printf -v 'a[…]', read, test -v) or runs a callback
// (mapfile -C) makes the call not allowable by command rules: bash can run
// commands hidden in a variable's value there. A command that fails to
// parse is never allowed: it is asked about. These limits do not apply to a
// rule for the whole tool (`{tool: shell, decision: allow}`), which allows
// any command that no deny rule matches.
//
// Redirections that write (>, >>, >|, &>, &>>, <>, n>, >&FILE), and files
// that programs write through options and operands, keep command
// rules from allowing the call unless every target is a literal path that
// resolves (against Options.Workdir, after `..` and symlinks, as path rules
// do) inside the workspace and not inside a .git folder at any depth, or is
// /dev/null, /dev/stdout or /dev/stderr. A target with ~ or $…, a relative
// target after cd/pushd/popd, or one written by a nested script (whose
// directory may differ) also asks. Otherwise the decision is "ask" with a
// reason (headless: a deny that says why). Allowed calls report
// "writes to …" in the reason.
//
// The programs whose written files are known (writeSpecs, with GNU option
// parsing: bundled short options, --long=value, unambiguous long prefixes,
// options among the operands): sort -o, uniq's output operand, tee, touch,
// mkdir, truncate, chmod and chown (every operand), cp, ln and install
// (the destination or -t DIR; the cwd for one operand), mv (the
// destination and the sources it removes), dd of=, sed -i (the files after
// the script), curl -o/-D/-c/--output-dir/… (-O writes into the cwd),
// wget -O/-o/-P/… (the cwd by default), tar (extracting writes into each
// -C DIR, else the cwd; creating writes -f FILE), find -fprint/-fprint0/
// -fprintf/-fls, go's -o, -coverprofile, -cpuprofile, -memprofile,
// -blockprofile, -mutexprofile, -trace, -outputdir, -modfile, -pkgdir and
// the test binary's -test.* forms (relative ones ask when -outputdir or
// go -C moves them), and git's --output (any abbreviation), format-patch
// -o and archive -o (relative ones ask after git -C). For cp, mv, ln and
// install an option tact does not know keeps allow rules from applying,
// since it may take a value and shift the operands. For these programs an
// argument with $… or a brace expansion may expand to such an option, so
// it keeps allow rules from applying too (`git diff $(cat f)` asks), as do
// options that make the writes unknowable: curl -K, wget -e/--config,
// curl -w %output{…}, tar -P (extracting to absolute paths), tar -f
// HOST:FILE and go env -w. The check covers where files land, not what an
// archive holds: an archive whose members are symlinks or .git files is
// extracted as it is.
//
// Patterns are matched word by word: "git log *" matches "git log" with any
// arguments or none and never "git logout"; "git log*" (a star glued to a
// word) matches any text there and, as the last word, any words after it; a
// pattern without a trailing star matches only that many words. Allowing an
// interpreter or wrapper ("bash *", "sudo *", "xargs *", "export *") allows
// whatever it runs from a script file; prefer narrow rules, and allow
// "cd *" so `cd dir && …` works.
//
// (*Policy).SessionScope and the headless suggestion scope the first simple
// command that no allow rule covers (`wc -l $(git ls-files)` with "wc *"
// allowed suggests "git ls-files *"); when every command is covered and the
// call asks for another reason, they say that reason instead. The package
// function SessionScope does not know the rules and scopes the first
// command. When options come before the subcommand, the headless suggestion
// names the exact prefix ("git --no-pager log *", "go -C sub test *"),
// because options stay part of a rule and "git log *" does not cover it.
//
// "Allow for session" (SessionScope) never builds a scope from an option
// (`git -C sub status` gets no session scope, since "git -C *" would allow
// `git -C . push`), and offers none for interpreters and program runners
// (bash, python*, perl, node, awk, sed, find, xargs, parallel, env, sudo,
// ssh, strace, timeout, watch, …), where any prefix rule is wider than its label.
//
// # Where approvals come from
//
// Tool results can never approve anything. The Policy takes its decisions
// only from the config, from session rules the user adds through the UI, and
// from the --yes flag; nothing a tool returns or the model writes reaches
// those inputs.
package approval
