package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tact/agent"
)

// reviewRules are the rules the security review used.
func reviewRules() []Rule {
	return []Rule{
		allow("git status *"), allow("ls *"), allow("cat *"),
		deny("rm *", "no rm"), deny("git push *", "no push"),
	}
}

// TestReviewBypasses holds every bypass the security review found; each
// must keep failing to get through.
func TestReviewBypasses(t *testing.T) {
	cases := []struct {
		name, cmd, want string
		contains        string // looked for in Reason + " | " + Rule
	}{
		// 1. Expansions that run code hidden in a trailing-star word.
		{"assign default + arithmetic", `ls ${x='a[$(rm -rf y)]'} $((x))`, "ask", "arithmetic"},
		{"assign default + @P", `cat ${x='$(rm -rf y)'} ${x@P}`, "ask", "operator"},
		{"git status arithmetic", `git status ${x='a[1]'} $((x))`, "ask", ""},
		{"@E operator", `cat ${x@E}`, "ask", "operator"},
		{"default operator", `cat ${x:-y}`, "ask", ""},
		{"error operator", `cat ${x?y}`, "ask", ""},
		{"length", `cat ${#x}`, "ask", ""},
		{"indirect", `cat ${!x}`, "ask", ""},
		{"subscript", `cat ${a[x]}`, "ask", ""},
		{"replace", `cat ${x/a/b}`, "ask", ""},
		{"case operators", `cat ${x^^} ${x,}`, "ask", ""},
		{"trim", `cat ${x#a} ${x%b}`, "ask", ""},
		{"arithmetic command after allowed", `ls && ((x))`, "ask", "arithmetic"},
		{"let", `ls; let x`, "ask", "arithmetic"},
		{"c-style for", `for ((i=x;;)); do ls; done`, "ask", ""},
		{"[[ -eq ]]", `[[ $x -eq 1 ]] && ls`, "ask", ""},
		{"[[ -v ]]", `[[ -v x ]] && ls`, "ask", ""},
		{"arithmetic in heredoc", "cat <<E\n$((x))\nE", "ask", ""},
		{"array subscript assignment", `a[x]=1 ls`, "ask", ""},
		{"printf -v subscript", `printf -v 'a[$(rm -rf y)]' x`, "ask", "subscript"},
		{"printf -v subscript allowed rule", `cat -v 'a[$(rm -rf y)]'`, "allow", ""}, // cat does not evaluate names
		{"plain var allowed", `cat $HOME "${USER}" ${x}`, "allow", ""},
		{"quoted plain var allowed", `ls "$x"`, "allow", ""},
		{"inner substitution still checked", `cat $(rm -rf y)`, "deny", "no rm"},
		{"numeric [[ ]] allowed", `[[ 1 -eq 1 ]] && ls`, "allow", ""},
		// 2. Redirections.
		{"append to home", `cat x >> ~/.ssh/authorized_keys`, "ask", "not plain text"},
		{"heredoc to bashrc", "cat > ~/.bashrc <<E\nx\nE", "ask", ""},
		{"git config", "cat > .git/config <<E\n[core]\nE", "ask", ".git folder"},
		{"git hook deep", `cat x > sub/.git/hooks/pre-commit`, "ask", ".git folder"},
		{"absolute outside", `cat x > /etc/profile`, "ask", "outside the workspace"},
		{"dotdot outside", `ls > ../x`, "ask", "outside the workspace"},
		{"fd redirect outside", `ls 2> /tmp/x`, "ask", "outside the workspace"},
		{"&> outside", `ls &> /tmp/x`, "ask", "outside"},
		{"&>> outside", `ls &>> /tmp/x`, "ask", "outside"},
		{">| outside", `ls >| /tmp/x`, "ask", "outside"},
		{"<> outside", `cat <> /tmp/x`, "ask", "outside"},
		{">& file outside", `ls >& /tmp/x`, "ask", "outside"},
		{"dynamic target", `ls > "$F"`, "ask", "not plain text"},
		{"after cd", `cd /tmp; ls > x`, "ask", "changing directory"},
		{"dev null ok", `ls > /dev/null 2> /dev/stderr`, "allow", ""},
		{"inside ok", `ls > out/x.txt`, "allow", "writes to out/x.txt"},
		{"deny still wins", `rm x > /tmp/x`, "deny", "no rm"},
		// 3. Deny bypasses.
		{"assignment prefix", `X=1 rm -rf x`, "deny", "no rm"},
		{"git -C", `git -C x push`, "deny", "no push"},
		{"git --no-pager", `git --no-pager push`, "deny", "no push"},
		{"git -c", `git -c a=b push`, "deny", "no push"},
		{"git --git-dir=", `git --git-dir=x push`, "deny", "no push"},
		{"git --git-dir", `git --git-dir x --work-tree=y -p push`, "deny", "no push"},
		{"GIT_DIR assignment", `GIT_DIR=x git push`, "deny", "no push"},
		{"git --namespace --bare --exec-path", `git --namespace=n --bare --exec-path=/x --paginate push`, "deny", "no push"},
		{"git alias script", `git -c alias.x='!rm -rf y' x`, "deny", "no rm"},
		{"git pager script", `git -c core.pager='rm -rf y' log`, "deny", "no rm"},
		{"git hooksPath", `git -c core.hooksPath=h commit`, "deny", "could not be checked"},
		{"bash -c --", `bash -c -- 'rm -rf x'`, "deny", "no rm"},
		{"bash -O", `bash -O extglob -c 'rm x'`, "deny", "no rm"},
		{"bash -o", `bash -o pipefail -c 'rm x'`, "deny", "no rm"},
		{"sh -e -c", `sh -e -c 'rm x'`, "deny", "no rm"},
		{"bash --norc -c", `bash --norc -c 'rm x'`, "deny", "no rm"},
		{"env -S", `env -S 'rm -rf x'`, "deny", "no rm"},
		{"env -S attached", `env -S'rm -rf x'`, "deny", "no rm"},
		{"env --split-string=", `env --split-string='rm x'`, "deny", "no rm"},
		{"env -S with args", `env -S 'FOO=1 rm' x`, "deny", "no rm"},
		{"sudo --user", `sudo --user root rm x`, "deny", "no rm"},
		{"sudo --us prefix", `sudo --us root rm x`, "deny", "no rm"},
		{"sudo -u", `sudo -u root rm x`, "deny", "no rm"},
		{"sudo -uroot", `sudo -uroot rm x`, "deny", "no rm"},
		{"nice --adjustment", `nice --adjustment 5 rm x`, "deny", "no rm"},
		{"nice -n", `nice -n 5 rm x`, "deny", "no rm"},
		{"nice -5", `nice -5 rm x`, "deny", "no rm"},
		{"ionice --class", `ionice --class 2 rm x`, "deny", "no rm"},
		{"timeout -s", `timeout -s KILL 5 rm x`, "deny", "no rm"},
		{"watch", `watch 'rm -rf x'`, "deny", "no rm"},
		{"watch -n", `watch -n 1 rm -rf x`, "deny", "no rm"},
		{"watch -x", `watch -x rm -rf x`, "deny", "no rm"},
		{"su -c", `su -c 'rm x'`, "deny", "no rm"},
		{"su user -c", `su root -c 'rm x'`, "deny", "no rm"},
		{"script -c", `script -c 'rm x'`, "deny", "no rm"},
		{"script -qc", `script -qc 'rm x' /dev/null`, "deny", "no rm"},
		{"trap", `trap 'rm -rf x' EXIT`, "deny", "no rm"},
		{"trap --", `trap -- 'rm -rf x' EXIT`, "deny", "no rm"},
		{"flock", `flock f rm x`, "deny", "no rm"},
		{"flock -c", `flock f -c 'rm x'`, "deny", "no rm"},
		{"flock -w", `flock -w 5 f rm x`, "deny", "no rm"},
		{"taskset", `taskset 1 rm x`, "deny", "no rm"},
		{"unshare", `unshare rm x`, "deny", "no rm"},
		{"unshare -r", `unshare -r --fork rm x`, "deny", "no rm"},
		{"setpriv", `setpriv rm x`, "deny", "no rm"},
		{"setpriv --reuid", `setpriv --reuid 1000 rm x`, "deny", "no rm"},
		{"strace", `strace rm x`, "deny", "no rm"},
		{"strace -o", `strace -f -o log rm x`, "deny", "no rm"},
		{"chroot", `chroot / rm x`, "deny", "no rm"},
		{"stdbuf", `stdbuf -o0 rm x`, "deny", "no rm"},
		{"nohup", `nohup rm x`, "deny", "no rm"},
		{"doas", `doas rm x`, "deny", "no rm"},
		{"runuser -u", `runuser -u x rm y`, "deny", "no rm"},
		{"systemd-run", `systemd-run rm x`, "deny", "no rm"},
		{"systemd-run --unit", `systemd-run --unit u -p A=b rm x`, "deny", "no rm"},
		{"firejail", `firejail --noprofile --net=none rm x`, "deny", "no rm"},
		{"ltrace", `ltrace rm x`, "deny", "no rm"},
		{"valgrind", `valgrind --tool=memcheck rm x`, "deny", "no rm"},
		{"gdb --args", `gdb -batch -ex r --args rm x`, "deny", "no rm"},
		{"gdb -ex shell", `gdb -batch -ex 'shell rm x' ls`, "deny", "could not be checked"},
		{"nested wrappers", `sudo -E env -u X nice -n 1 timeout 5 git -C . push`, "deny", "no push"},
		{"unknown wrapper option", `sudo --frobnicate x rm`, "deny", "could not be checked against the deny rules"},
		{"unknown env option", `env -Z rm x`, "deny", "could not be checked"},
		{"dynamic wrapper option", `nice $OPT rm x`, "deny", "could not be checked"},
		{"here-string", `bash <<< 'rm x'`, "deny", "no rm"},
		{"heredoc", "bash <<'E'\nrm x\nE", "deny", "no rm"},
		{"heredoc unquoted", "sh <<E\nrm x\nE", "deny", "no rm"},
		{"pipe to bash", `echo 'rm x' | bash`, "deny", "could not be checked"},
		{"file to bash", `bash < script.sh`, "deny", "could not be checked"},
		{"bash -s", `bash -s < script.sh`, "deny", "could not be checked"},
		{"sudo bash here-string", `sudo bash <<< 'rm x'`, "deny", "no rm"},
		{"dynamic -c", `bash -c "$X"`, "deny", "could not be checked"},
		{"sudo -s shell", `echo 'rm x' | sudo -s`, "deny", "could not be checked"},
		{"su shell", `echo 'rm x' | su`, "deny", "could not be checked"},
		{"flock --command", `flock f --command 'rm x'`, "deny", "no rm"},
		{"runuser user -c", `runuser x -c 'rm y'`, "deny", "no rm"},
		{"xargs sh -c", `xargs -0 -I{} sh -c 'rm {}'`, "deny", "no rm"},
		{"trap reset is harmless", `trap - EXIT; ls`, "ask", ""}, // trap itself is not allowed
		{"command -v", `command -v git status`, "ask", ""},
		// Unknown inner commands are never allowed, even by a matching rule.
		{"known wrapper still needs allow", `timeout 5 ls`, "ask", ""},
		{"unknown under tool rule", `cat x | bash`, "deny", "could not be checked"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, d := outcome(t, Config{Rules: reviewRules()}, shellReq(tc.cmd))
			if got != tc.want {
				t.Fatalf("%q: got %s (%+v), want %s", tc.cmd, got, d, tc.want)
			}
			if got == "ask" {
				// The asker answered; the reason is in the headless deny.
				hd, err := newPolicy(t, Config{Rules: reviewRules()}, Options{}).Approve(context.Background(), shellReq(tc.cmd))
				if err != nil {
					t.Fatal(err)
				}
				d = hd
			}
			if all := d.Reason + " | " + d.Rule; !strings.Contains(all, tc.contains) {
				t.Errorf("%q: decision %q does not contain %q", tc.cmd, all, tc.contains)
			}
		})
	}
}

// TestNotAllowableWithoutDeny checks that unknown commands ask (and do not
// deny) when there is no deny rule, and that allow rules never cover them.
func TestNotAllowableWithoutDeny(t *testing.T) {
	rules := []Rule{allow("bash *"), allow("echo *"), allow("sudo *"), allow("cat *")}
	for _, cmd := range []string{
		`echo 'rm x' | bash`, `bash < s.sh`, `bash -c "$X"`, `sudo --frobnicate rm`,
		`echo ${x='a[$(id)]'} $((x))`, `cat x > ~/.profile`, `bash -c 'echo x > out'`,
	} {
		got, d := outcome(t, Config{Rules: rules}, shellReq(cmd))
		if got != "ask" {
			t.Errorf("%q: got %s (%+v), want ask", cmd, got, d)
		}
	}
	// Headless: the ask becomes a deny that says why.
	p := newPolicy(t, Config{Rules: rules}, Options{})
	d, err := p.Approve(context.Background(), shellReq(`cat x >> ~/.ssh/authorized_keys`))
	if err != nil {
		t.Fatal(err)
	}
	if d.Allow || !strings.Contains(d.Reason, "writes to ~/.ssh/authorized_keys") || !strings.Contains(d.Reason, "do not apply") {
		t.Fatalf("headless redirect: got %+v, want a deny naming the target", d)
	}
	// A tool-wide allow is the user's choice to run anything.
	if got, d := outcome(t, Config{Rules: []Rule{{Tool: "shell", Decision: DecisionAllow}}}, shellReq(`cat x > /tmp/y`)); got != "allow" {
		t.Errorf("tool-wide allow: got %s (%+v)", got, d)
	}
}

// TestRedirectSymlink checks that a redirection through a symlink that
// leaves the workspace is not allowed.
func TestRedirectSymlink(t *testing.T) {
	ws, outside := workspace(t)
	asker := &recordingAsker{answer: agent.Decision{Reason: "asked"}}
	p := newPolicy(t, Config{Rules: []Rule{allow("echo *")}}, Options{Workdir: ws, Asker: asker})
	if err := os.Symlink(filepath.Join(ws, ".git"), filepath.Join(ws, "g")); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]bool{
		"echo x > src/out/f":      false, // src/out → outside/sub
		"echo x > src/dang":       false,
		"echo x > src/in/f":       true, // → docs/f
		"echo x > g/config":       false,
		"echo x > " + outside:     false,
		"echo x > " + ws + "/f":   true,
		"echo x > src/../../x":    false,
		"echo x > docs/.GIT/hook": false,
	} {
		before := asker.calls.Load()
		d, err := p.Approve(context.Background(), shellReq(cmd))
		if err != nil {
			t.Fatal(err)
		}
		allowed := d.Allow && asker.calls.Load() == before
		if allowed != want {
			t.Errorf("%q: allowed=%v (%+v), want %v", cmd, allowed, d, want)
		}
	}
}

// review2Rules are the rules of the second security review.
func review2Rules() []Rule {
	var rs []Rule
	for _, c := range []string{"git status *", "git diff *", "git log *", "ls *", "cat *", "sort *", "uniq *",
		"go test *", "go build *", "go vet *", "rg *", "find *", "grep *", "wc *", "true"} {
		rs = append(rs, allow(c))
	}
	return append(rs, deny("rm *", "no rm"), deny("git push *", "no push"))
}

// TestWriteAndRunOptions holds the second review's findings: writes through
// options and operands, and options that run programs.
func TestWriteAndRunOptions(t *testing.T) {
	cases := []struct {
		name, cmd, want string
		contains        string // looked for in the headless Reason + " | " + Rule
	}{
		// 1. find -delete is rm; find's file-printing actions write.
		{"find -delete", `find . -delete`, "deny", "no rm"},
		{"find -delete late", `find . -delete -name x`, "deny", "no rm"},
		{"find -name -delete", `find . -name '*.o' -delete`, "deny", "no rm"},
		{"find under xargs", `xargs find -delete`, "deny", "no rm"},
		{"find -fprint", `find . -fprint /etc/x`, "ask", "writes to /etc/x"},
		{"find -fprint0 git", `find . -fprint0 .git/config`, "ask", ".git folder"},
		{"find -fprintf", `find . -fprintf ~/.bashrc '%p'`, "ask", "writes to ~/.bashrc"},
		{"find -fls", `find . -fls ../x`, "ask", "outside the workspace"},
		{"find -fprint inside", `find . -fprint out.txt`, "allow", "writes to out.txt"},
		{"find plain", `find . -name x`, "allow", ""},
		{"find dynamic action", `find . $ACTION`, "ask", "not plain text"},
		{"find brace expansion", `find . -name x {-delete,}`, "ask", "not plain text"},
		{"sort brace expansion", `sort a {-o,/etc/x}`, "ask", "not plain text"},
		// 2. Writes through options and operands.
		{"sort -o git", `sort -o .git/config a.txt`, "ask", "writes to .git/config"},
		{"sort -o attached", `sort -o.git/config a.txt`, "ask", ".git folder"},
		{"sort --output=", `sort --output=/etc/x a.txt`, "ask", "writes to /etc/x"},
		{"sort --out abbreviation", `sort a.txt --out /etc/x`, "ask", "writes to /etc/x"},
		{"sort -uo bundle", `sort -uo /etc/x a.txt`, "ask", "outside the workspace"},
		{"sort -k value", `sort -k -o a.txt`, "allow", ""}, // -o is -k's value
		{"sort inside", `sort -o out.txt a.txt`, "allow", "writes to out.txt"},
		{"sort plain", `sort -n a.txt`, "allow", ""},
		{"sort dynamic", `sort $(cat opts) a.txt`, "ask", "not plain text"},
		{"uniq output operand", `uniq a.txt ~/.bashrc`, "ask", "writes to ~/.bashrc"},
		{"uniq -f output", `uniq -f 1 a.txt /etc/x`, "ask", "writes to /etc/x"},
		{"uniq one operand", `uniq -c a.txt`, "allow", ""},
		{"go build -o", `go build -o ~/.bashrc .`, "ask", "writes to ~/.bashrc"},
		{"go build -o=", `go build -o=/etc/x .`, "ask", "writes to /etc/x"},
		{"go test -coverprofile", `go test -coverprofile=/etc/x ./...`, "ask", "writes to /etc/x"},
		{"go test --cpuprofile", `go test --cpuprofile /etc/x ./...`, "ask", "writes to /etc/x"},
		{"go test -memprofile", `go test -memprofile=.git/x ./...`, "ask", ".git folder"},
		{"go test -blockprofile", `go test -blockprofile=/tmp/b ./...`, "ask", "outside"},
		{"go test -mutexprofile", `go test -mutexprofile=/tmp/m ./...`, "ask", "outside"},
		{"go test -trace", `go test -trace /tmp/t ./...`, "ask", "outside"},
		{"go test -o", `go test -c -o /tmp/t.test .`, "ask", "outside"},
		{"go test -args test flag", `go test . -args -test.cpuprofile=/etc/x`, "ask", "writes to /etc/x"},
		{"go test outputdir", `go test -outputdir=/etc -cpuprofile=x ./...`, "ask", "writes to /etc"},
		{"go -C", `go -C sub build -o x .`, "ask", "changing directory"},
		{"go test coverprofile inside", `go test -coverprofile=c.out ./...`, "allow", "writes to c.out"},
		{"go test plain", `go test -run TestX -v ./...`, "allow", ""},
		{"git diff --output", `git diff --output=.git/config`, "ask", "writes to .git/config"},
		{"git diff --output separate", `git diff --output /etc/x HEAD`, "ask", "writes to /etc/x"},
		{"git diff --outp abbreviation", `git diff --outp=/etc/x`, "ask", "writes to /etc/x"},
		{"git log --output", `git log --output=.git/hooks/pre-commit`, "ask", ".git folder"},
		{"git -C log --output", `git -C sub log --output=x`, "ask", "changing directory"},
		{"git log inside", `git log --output=log.txt -5`, "allow", "writes to log.txt"},
		{"git log path after --", `git log -- --output=/etc/x`, "allow", ""},
		{"git log indicator", `git diff --output-indicator-new=+`, "allow", ""},
		{"git log dynamic", `git diff $(cat f)`, "ask", "not plain text"},
		// Writers the review rules do not allow still report the write.
		{"tee", `ls | tee a /etc/x`, "ask", "writes to /etc/x"},
		{"cp dest", `cp a.txt /etc/x`, "ask", "writes to /etc/x"},
		{"cp -t", `cp -t /etc a b`, "ask", "writes to /etc"},
		{"mv source", `mv /etc/x y`, "ask", "writes to /etc/x"},
		{"install", `install -m 755 a /usr/local/bin/a`, "ask", "writes to /usr/local/bin/a"},
		{"ln", `ln -s a ~/.bashrc`, "ask", "writes to ~/.bashrc"},
		{"dd of", `dd if=a of=/etc/x`, "ask", "writes to /etc/x"},
		{"curl -o", `curl -sSLo /etc/x https://e`, "ask", "writes to /etc/x"},
		{"curl --output", `curl --output ~/.x https://e`, "ask", "writes to ~/.x"},
		{"wget -O", `wget -O /etc/x https://e`, "ask", "writes to /etc/x"},
		{"tar -C", `tar -xzf a.tgz -C /etc`, "ask", "writes to /etc"},
		{"tar old style", `tar xfC a.tar /etc`, "ask", "writes to /etc"},
		{"tar -cf", `tar -czf /tmp/a.tgz .`, "ask", "writes to /tmp/a.tgz"},
		{"sed -i", `sed -i 's/a/b/' /etc/x`, "ask", "writes to /etc/x"},
		{"sed -i -e", `sed -i.bak -e 's/a/b/' .git/config`, "ask", ".git folder"},
		{"truncate", `truncate -s 0 /etc/x`, "ask", "writes to /etc/x"},
		{"touch", `touch ~/.x`, "ask", "writes to ~/.x"},
		{"mkdir", `mkdir -p /tmp/d`, "ask", "writes to /tmp/d"},
		{"chmod", `chmod 644 /etc/x`, "ask", "writes to /etc/x"},
		{"chown", `chown -R u:g /etc/x`, "ask", "writes to /etc/x"},
		{"cp unknown option", `cp --frob a b`, "ask", "does not know"},
		{"sudo tee", `echo x | sudo tee -a /etc/x`, "ask", "writes to /etc/x"},
		// Runners that add arguments tact cannot see to a writer.
		{"xargs uniq", `ls | xargs uniq`, "ask", "xargs adds arguments to uniq"},
		{"xargs sort -o from input", `echo -o /etc/x | xargs sort`, "ask", "xargs adds arguments"},
		{"find -exec touch", `find /etc -exec touch {} +`, "ask", "find -exec adds arguments to touch"},
		{"find -exec sort without {}", `find . -exec sort -o out a \;`, "ask", "nested"}, // a wrapper's directory may differ
		{"find -exec sort -o outside", `find . -exec sort -o /etc/x a \;`, "ask", "writes to /etc/x"},
		{"parallel touch", `parallel touch ::: /etc/x`, "ask", "parallel adds arguments to touch"},
		{"find -exec wc {} allowed", `find . -name '*.go' -exec wc -l {} +`, "allow", ""}, // wc writes nothing
		// 3. Options that run programs.
		{"go test -exec", `go test -exec rm ./...`, "deny", "no rm"},
		{"go test -exec args", `go test -exec 'rm -rf y' ./...`, "deny", "no rm"},
		{"go test -toolexec", `go test -toolexec 'rm -rf y' ./...`, "deny", "no rm"},
		{"go build -toolexec=", `go build -toolexec=/bin/rm .`, "deny", "no rm"},
		{"go vet -vettool", `go vet -vettool=/usr/bin/rm ./...`, "deny", "no rm"},
		{"go vet -vettool separate", `go vet -vettool /usr/bin/rm ./...`, "deny", "no rm"},
		{"go -exec other needs allow", `go test -exec ./run.sh ./...`, "ask", ""},
		{"go -exec dynamic", `go test -exec "$X" ./...`, "deny", "could not be checked"},
		{"rg --pre", `rg --pre rm foo`, "deny", "no rm"},
		{"rg --pre=", `rg --pre=/bin/rm foo`, "deny", "no rm"},
		{"rg -e --pre", `rg -e x --pre rm .`, "deny", "no rm"},
		{"rg plain", `rg -n foo src`, "allow", ""},
		{"sort --compress-program", `sort --compress-program=rm a`, "deny", "no rm"},
		{"tar -I", `tar -I 'rm -rf y' -xf a.tar`, "deny", "no rm"},
		{"tar --to-command", `tar --to-command='rm x' -xf a.tar`, "deny", "no rm"},
		{"tar --checkpoint-action", `tar --checkpoint-action=exec='rm x' -cf a.tar .`, "deny", "no rm"},
		{"tar --remove-files", `tar -cf a.tar --remove-files x`, "deny", "no rm"},
		{"git grep -O", `git grep -Orm foo`, "deny", "no rm"},
		{"git rebase --exec", `git rebase --exec 'rm x' HEAD~1`, "deny", "no rm"},
		{"parallel", `parallel rm ::: a b`, "deny", "no rm"},
		{"parallel -j", `parallel -j 4 'rm {}' ::: a`, "deny", "no rm"},
		{"parallel no command", `parallel ::: 'rm x'`, "deny", "could not be checked"},
		{"parallel program from input", `parallel {} x ::: rm`, "deny", "could not be checked"},
		{"parallel perl", `parallel echo '{= system("rm x") =}' ::: a`, "deny", "could not be checked"},
		{"parallel unknown option", `parallel --ssh rm ls ::: a`, "deny", "could not be checked"},
		// 4. Suggestions name the first command no rule covers.
		{"suggest uncovered", `wc -l $(git ls-files)`, "ask", `command: "git ls-files *"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, d := outcome(t, Config{Rules: review2Rules()}, shellReq(tc.cmd))
			if got != tc.want {
				t.Fatalf("%q: got %s (%+v), want %s", tc.cmd, got, d, tc.want)
			}
			if got == "ask" {
				hd, err := newPolicy(t, Config{Rules: review2Rules()}, Options{}).Approve(context.Background(), shellReq(tc.cmd))
				if err != nil {
					t.Fatal(err)
				}
				d = hd
			}
			if all := d.Reason + " | " + d.Rule; !strings.Contains(all, tc.contains) {
				t.Errorf("%q: decision %q does not contain %q", tc.cmd, all, tc.contains)
			}
		})
	}
}
