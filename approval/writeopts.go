package approval

import "strings"

// operandRule says which operands of a program it writes.
type operandRule int

const (
	opsNone        operandRule = iota
	opsAll                     // tee, touch, mkdir, truncate, chmod, chown: every operand
	opsAllButFirst             // uniq IN OUT: the output operand (and any after it)
	opsLast                    // cp, ln, install: the destination (cwd with one operand)
	opsMove                    // mv: the destination and the sources it removes
	opsSed                     // sed -i: the files after the script
)

// writeSpec describes the options and operands through which a program
// writes files or runs other programs. Option names are canonical (the last
// name of a newSpec entry).
type writeSpec struct {
	opts *wrapSpec
	// files are options whose value is a file or folder the program writes.
	files map[string]bool
	// progs are options whose value is a program it runs (a path).
	progs map[string]bool
	// cmdLines are options whose value is a command line it splits and runs.
	cmdLines map[string]bool
	// scripts are options whose value is a shell script it runs.
	scripts map[string]bool
	// unsafe are options that make what it writes or runs unknowable.
	unsafe map[string]string
	// operands says which operands are written.
	operands operandRule
	// strict: an option tact does not know may take a value and shift the
	// operands, so the written operand is unknown.
	strict bool
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// interesting reports whether a canonical option matters to the write check.
func (ws *writeSpec) interesting(c string) bool {
	_, u := ws.unsafe[c]
	return ws.files[c] || ws.progs[c] || ws.cmdLines[c] || ws.scripts[c] || u
}

// writeSpecs lists programs that write files named by options or operands,
// or run programs named by options. GNU option syntax: bundled short
// options, --long=value and --long value, unambiguous long prefixes, and
// options anywhere among the operands. Go's and git's own syntax is read by
// goWrites and gitWrites.
var writeSpecs = map[string]*writeSpec{
	"sort": {
		opts: newSpec("b|ignore-leading-blanks", "d|dictionary-order", "f|ignore-case", "g|general-numeric-sort",
			"h|human-numeric-sort", "i|ignore-nonprinting", "M|month-sort", "n|numeric-sort", "R|random-sort",
			"r|reverse", "V|version-sort", "c|check?", "C", "m|merge", "s|stable", "u|unique", "z|zero-terminated",
			"k|key=", "t|field-separator=", "S|buffer-size=", "T|temporary-directory=", "o|output=", "batch-size=",
			"compress-program=", "files0-from=", "parallel=", "random-source=", "sort=", "debug", "help", "version"),
		files: set("output"), progs: set("compress-program"),
	},
	"uniq": {
		opts: newSpec("c|count", "d|repeated", "D", "all-repeated?", "group?", "f|skip-fields=", "s|skip-chars=",
			"w|check-chars=", "i|ignore-case", "u|unique", "z|zero-terminated", "help", "version").
			with(func(s *wrapSpec) { s.numeric = true }),
		operands: opsAllButFirst,
	},
	"tee":      {opts: newSpec("a|append", "i|ignore-interrupts", "p", "output-error?", "help", "version"), operands: opsAll},
	"touch":    {opts: newSpec("a", "c|no-create", "d|date=", "f", "h|no-dereference", "m", "r|reference=", "t=", "time=", "help", "version"), operands: opsAll},
	"mkdir":    {opts: newSpec("m|mode=", "p|parents", "v|verbose", "Z", "context?", "help", "version"), operands: opsAll},
	"truncate": {opts: newSpec("c|no-create", "o|io-blocks", "r|reference=", "s|size=", "help", "version"), operands: opsAll},
	"chmod": {opts: newSpec("c|changes", "f|silent|quiet", "v|verbose", "R|recursive", "preserve-root", "no-preserve-root",
		"reference=", "help", "version"), operands: opsAll},
	"chown": {opts: newSpec("c|changes", "f|silent|quiet", "v|verbose", "R|recursive", "h|no-dereference", "H", "L", "P",
		"dereference", "from=", "reference=", "preserve-root", "no-preserve-root", "help", "version"), operands: opsAll},
	"cp": {
		opts: newSpec("a|archive", "attributes-only", "b", "backup?", "copy-contents", "d", "debug", "f|force",
			"i|interactive", "H", "l|link", "L|dereference", "n|no-clobber", "P|no-dereference", "p", "preserve?",
			"no-preserve=", "parents", "R|r|recursive", "reflink?", "remove-destination", "sparse=",
			"strip-trailing-slashes", "s|symbolic-link", "S|suffix=", "t|target-directory=", "T|no-target-directory",
			"u|update?", "v|verbose", "x|one-file-system", "Z", "context?", "keep-directory-symlink", "help", "version"),
		files: set("target-directory"), operands: opsLast, strict: true,
	},
	"mv": {
		opts: newSpec("b", "backup?", "debug", "exchange", "f|force", "i|interactive", "n|no-clobber", "no-copy",
			"strip-trailing-slashes", "S|suffix=", "t|target-directory=", "T|no-target-directory", "u|update?",
			"v|verbose", "Z|context", "help", "version"),
		files: set("target-directory"), operands: opsMove, strict: true,
	},
	"ln": {
		opts: newSpec("b", "backup?", "d|F|directory", "f|force", "i|interactive", "L|logical", "n|no-dereference",
			"P|physical", "r|relative", "s|symbolic", "S|suffix=", "t|target-directory=", "T|no-target-directory",
			"v|verbose", "help", "version"),
		files: set("target-directory"), operands: opsLast, strict: true,
	},
	"install": {
		opts: newSpec("b", "backup?", "C|compare", "D", "d|directory", "g|group=", "m|mode=", "o|owner=",
			"p|preserve-timestamps", "s|strip", "strip-program=", "S|suffix=", "t|target-directory=",
			"T|no-target-directory", "v|verbose", "debug", "preserve-context", "Z", "context?", "help", "version"),
		files: set("target-directory"), progs: set("strip-program"), operands: opsLast, strict: true,
	},
	"sed": {
		opts: newSpec("n|quiet|silent", "debug", "E|r|regexp-extended", "s|separate", "z|null-data", "u|unbuffered",
			"posix", "sandbox", "follow-symlinks", "b|binary", "e|expression=", "f|file=", "l|line-length=",
			"i|in-place?", "help", "version"),
		operands: opsSed,
	},
	"curl": {
		opts: newSpec("d|data=", "data-raw=", "data-binary=", "data-urlencode=", "data-ascii=", "H|header=",
			"X|request=", "u|user=", "A|user-agent=", "e|referer=", "b|cookie=", "c|cookie-jar=", "D|dump-header=",
			"o|output=", "output-dir=", "O|remote-name", "remote-name-all", "J|remote-header-name",
			"T|upload-file=", "w|write-out=", "x|proxy=", "K|config=", "E|cert=", "F|form=", "form-string=",
			"m|max-time=", "r|range=", "U|proxy-user=", "Y|speed-limit=", "y|speed-time=", "z|time-cond=",
			"C|continue-at=", "P|ftp-port=", "Q|quote=", "t|telnet-option=", "connect-timeout=", "retry=",
			"retry-delay=", "retry-max-time=", "max-redirs=", "resolve=", "cacert=", "capath=", "key=", "json=",
			"url=", "trace=", "trace-ascii=", "stderr=", "etag-save=", "etag-compare=", "hsts=", "alt-svc=",
			"libcurl=", "netrc-file=", "unix-socket=", "interface=", "limit-rate=", "variable=", "create-dirs",
			"s|silent", "S|show-error", "L|location", "f|fail", "v|verbose", "I|head", "i|include", "k|insecure",
			"q|disable", "G|get", "N|no-buffer", "Z|parallel", "compressed", "fail-with-body", "h|help", "V|version"),
		files: set("output", "output-dir", "cookie-jar", "dump-header", "trace", "trace-ascii", "stderr",
			"etag-save", "hsts", "alt-svc", "libcurl"),
		unsafe: map[string]string{"config": "curl -K reads options from a file, which may name files it writes"},
	},
	"wget": {
		opts: newSpec("O|output-document=", "o|output-file=", "a|append-output=", "P|directory-prefix=",
			"i|input-file=", "B|base=", "e|execute=", "t|tries=", "T|timeout=", "w|wait=", "U|user-agent=",
			"l|level=", "A|accept=", "R|reject=", "D|domains=", "I|include-directories=", "X|exclude-directories=",
			"Q|quota=", "save-cookies=", "load-cookies=", "post-data=", "post-file=", "header=", "user=",
			"password=", "http-user=", "http-password=", "warc-file=", "config=", "rejected-log=", "referer=",
			"bind-address=", "limit-rate=", "hsts-file=", "q|quiet", "v|verbose", "c|continue",
			"N|timestamping", "r|recursive", "no-parent", "no-clobber", "x|force-directories",
			"no-directories", "k|convert-links", "p|page-requisites", "m|mirror", "S|server-response",
			"no-check-certificate", "spider", "h|help", "V|version"),
		files: set("output-document", "output-file", "append-output", "directory-prefix", "save-cookies",
			"warc-file", "rejected-log", "hsts-file"),
		unsafe: map[string]string{
			"execute": "wget -e runs wgetrc commands, which may name files it writes",
			"config":  "wget --config reads a wgetrc file, which may name files it writes",
		},
	},
	"tar": {
		opts: newSpec("x|get|extract", "c|create", "r|append", "u|update", "A|concatenate|catenate", "t|list",
			"d|diff|compare", "delete", "f|file=", "C|directory=", "T|files-from=", "X|exclude-from=",
			"b|blocking-factor=", "g|listed-incremental=", "I|use-compress-program=", "F|info-script|new-volume-script=",
			"K|starting-file=", "L|tape-length=", "N|newer|after-date=", "V|label=", "H|format=", "exclude=",
			"transform|xform=", "strip-components=", "owner=", "group=", "mode=", "mtime=", "to-command=",
			"checkpoint-action=", "rsh-command=", "rmt-command=", "index-file=", "suffix=", "backup?", "checkpoint?",
			"occurrence?", "sort=", "atime-preserve?", "record-size=", "newer-mtime=", "level=", "quoting-style=",
			"volno-file=", "warning=", "exclude-tag=", "exclude-tag-all=", "exclude-tag-under=", "owner-map=",
			"group-map=", "z|gzip|gunzip|ungzip", "j|bzip2", "J|xz", "Z|compress|uncompress", "a|auto-compress",
			"lzip", "lzma", "lzop", "zstd", "v|verbose", "p|preserve-permissions|same-permissions",
			"P|absolute-names", "k|keep-old-files", "U|unlink-first", "O|to-stdout", "m|touch", "S|sparse",
			"W|verify", "h|dereference", "l|check-links", "o", "B|read-full-records", "i|ignore-zeros",
			"M|multi-volume", "R|block-number", "s|preserve-order|same-order", "w|interactive|confirmation",
			"G|incremental", "n|seek", "overwrite", "overwrite-dir", "keep-newer-files", "skip-old-files",
			"remove-files", "force-local", "no-recursion", "recursion", "wildcards", "no-wildcards", "totals?",
			"same-owner", "no-same-owner", "no-same-permissions", "one-file-system", "null", "exclude-vcs",
			"exclude-vcs-ignores", "exclude-backups", "exclude-caches", "numeric-owner", "xattrs", "acls",
			"selinux", "posix", "help", "usage", "version"),
		files:    set("listed-incremental", "index-file", "volno-file"),
		progs:    set("new-volume-script", "rsh-command", "rmt-command"),
		cmdLines: set("use-compress-program"),
		scripts:  set("to-command"),
	},
	"rg": {
		opts: newSpec("e|regexp=", "f|file=", "g|glob=", "iglob=", "t|type=", "T|type-not=", "type-add=",
			"type-clear=", "A|after-context=", "B|before-context=", "C|context=", "m|max-count=", "max-depth|maxdepth=",
			"d", "M|max-columns=", "j|threads=", "E|encoding=", "r|replace=", "pre=", "pre-glob=", "hostname-bin=",
			"ignore-file=", "path-separator=", "colors=", "color=", "sort=", "sortr=", "field-context-separator=",
			"field-match-separator=", "context-separator=", "dfa-size-limit=", "regex-size-limit=", "max-filesize=",
			"engine=", "generate="),
		progs: set("pre", "hostname-bin"),
	},
}

// longMatch finds the option a long option name stands for: itself, or the
// option it is an unambiguous prefix of. When the prefix is
// ambiguous but one candidate matters to the write check, that one is
// chosen, so an abbreviation never hides a write.
func (ws *writeSpec) longMatch(name string) (string, bool) {
	if key, ok := ws.opts.longMatch(name); ok {
		return key, true
	}
	if name == "" {
		return "", false
	}
	for k := range ws.opts.opts {
		if strings.HasPrefix(k, "--"+name) && ws.interesting(ws.opts.canon[k]) {
			return k, true
		}
	}
	return "", false
}

// parsedArgs is what parseArgs found.
type parsedArgs struct {
	values   []optValueAt
	seen     map[string]bool
	operands []word
	// unknown lists options the table does not know; they are read as
	// flags, which never hides a later word from the check.
	unknown []string
}

func (p parsedArgs) all(name string) []word {
	var out []word
	for _, v := range p.values {
		if v.name == name {
			out = append(out, v.val)
		}
	}
	return out
}

// parseArgs reads a GNU-style command line where options and operands mix.
func parseArgs(ws *writeSpec, args []word) parsedArgs {
	sp := ws.opts
	res := parsedArgs{seen: map[string]bool{}}
	add := func(name string, w word) {
		res.values = append(res.values, optValueAt{name: name, val: w})
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case t == "--" && a.literal:
			res.operands = append(res.operands, args[i+1:]...)
			return res
		case !strings.HasPrefix(t, "-") || t == "-":
			res.operands = append(res.operands, a)
		case strings.HasPrefix(t, "--"):
			name, val, hasVal := strings.Cut(t[2:], "=")
			key, ok := ws.longMatch(name)
			if !ok {
				res.unknown = append(res.unknown, t)
				continue
			}
			c := sp.canon[key]
			res.seen[c] = true
			switch sp.opts[key] {
			case optValue:
				if hasVal {
					add(c, word{text: val, literal: a.literal})
				} else if i+1 < len(args) {
					i++
					add(c, args[i])
				}
			case optOptional:
				if hasVal {
					add(c, word{text: val, literal: a.literal})
				}
			}
		default:
		bundle:
			for j := 1; j < len(t); j++ {
				key := "-" + t[j:j+1]
				kind, ok := sp.opts[key]
				if !ok {
					if !(sp.numeric && t[j] >= '0' && t[j] <= '9') {
						res.unknown = append(res.unknown, key)
					}
					continue
				}
				c := sp.canon[key]
				res.seen[c] = true
				if kind == optFlag {
					continue
				}
				rest := t[j+1:]
				switch {
				case rest != "":
					add(c, word{text: rest, literal: a.literal})
				case kind == optValue && i+1 < len(args):
					i++
					add(c, args[i])
				}
				break bundle
			}
		}
	}
	return res
}
