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
// process substitutions, if/while/for/case bodies, function bodies, the
// script of `bash -c '…'`/`sh -c '…'`/`eval '…'` (parsed recursively) and the
// command run by wrappers such as sudo, env, xargs, timeout, nohup and
// `find -exec`. A variable assignment (`PATH=x`, `export X=y`) is a simple
// command of its own.
//
// A deny or ask rule matches when ANY simple command matches its pattern; the
// first word is also compared by its base name (/bin/rm matches "rm *"), and
// a word with expansions ($VAR, $(…), globs) could be anything, so it matches
// any pattern word. The call is allowed by rules only when EVERY simple
// command matches some allow rule, comparing words exactly. A word with
// expansions never matches a fixed pattern word; only a trailing "*" covers
// it (an expansion cannot add commands, and its inner substitutions are
// checked on their own). A command that fails to parse is never allowed: it
// is asked about.
//
// Patterns are matched word by word: "git log *" matches "git log" with any
// arguments or none and never "git logout"; "git log*" (a star glued to a
// word) matches any text there and, as the last word, any words after it; a
// pattern without a trailing star matches only that many words. Allowing an
// interpreter or wrapper ("bash *", "sudo *", "xargs *", "export *") allows
// whatever it runs from a file or from stdin; prefer narrow rules, and allow
// "cd *" so `cd dir && …` works.
//
// # Where approvals come from
//
// Tool results can never approve anything. The Policy takes its decisions
// only from the config, from session rules the user adds through the UI, and
// from the --yes flag; nothing a tool returns or the model writes reaches
// those inputs.
package approval
