//go:build linux

package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFileToolsSymlinkSwapRace swaps the workspace folder d with a symlink
// to an outside folder (renameat2 RENAME_EXCHANGE, so d always exists) while
// the file tools run. A check-then-open-by-path implementation reads and
// writes outside within a few tries; through os.Root it never may.
func TestFileToolsSymlinkSwapRace(t *testing.T) {
	h := newHarness(t, Options{})
	outside := t.TempDir()
	const secret = "SECRET-OUTSIDE"
	writeFiles(t, outside, map[string]string{"f": secret + "\n"})
	writeFiles(t, h.ws, map[string]string{"d/f": "inside\n"})
	d, swap := filepath.Join(h.ws, "d"), filepath.Join(h.ws, "swap")
	if err := os.Symlink(outside, swap); err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2 RENAME_EXCHANGE unavailable here: %v", err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	}()
	finish := func() {
		stop.Store(true)
		wg.Wait()
	}
	defer finish()

	outsideUnchanged := func() error {
		entries, err := os.ReadDir(outside)
		if err != nil {
			return err
		}
		if len(entries) != 1 {
			return fmt.Errorf("the outside folder now holds %d entries", len(entries))
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "f")); string(b) != secret+"\n" {
			return fmt.Errorf("the outside file changed: %q", b)
		}
		return nil
	}
	refused := 0
	// run calls one tool 500 times. A call may succeed, be refused as
	// outside, or fail with allowed (a miss only the inside file gives); it
	// must never show leak (found only outside) or change anything outside.
	run := func(name string, args map[string]any, leak, allowed string) {
		t.Run(name, func(t *testing.T) {
			// Undo a failure's damage so the next tool is judged on its own.
			t.Cleanup(func() {
				_ = os.Remove(filepath.Join(outside, "pwned"))
				writeFiles(t, outside, map[string]string{"f": secret + "\n"})
			})
			for i := range 500 {
				r := h.call(name, args)
				if r.Success && strings.Contains(r.Output, leak) {
					t.Fatalf("try %d showed the outside folder: %q", i, r.Output)
				}
				if err := outsideUnchanged(); err != nil {
					t.Fatalf("try %d (%q): %v", i, r.Output, err)
				}
				switch {
				case r.Success:
				case r.Error == nil:
					t.Fatalf("try %d failed without an error", i)
				case strings.Contains(r.Error.Message, "outside the workspace"),
					// os.Root met d as a symlink, then as a folder again.
					strings.Contains(r.Error.Message, "not a directory"),
					strings.Contains(r.Error.Message, "too many levels of symbolic links"):
					refused++
				case allowed == "" || !strings.Contains(r.Error.Message, allowed):
					t.Fatalf("try %d: unexpected failure %+v", i, r.Error)
				}
			}
		})
	}
	run("read_file", map[string]any{"path": "d/f"}, secret, "")
	run("write_file", map[string]any{"path": "d/pwned", "content": "x"}, "\x00", "")
	run("edit_file", map[string]any{"path": "d/f", "old_string": "SECRET", "new_string": "PWNED"}, "replaced", "old_string not found")
	run("search_files", map[string]any{"pattern": "SECRET", "path": "d"}, secret, "")
	// The outside f is 15 bytes, the inside one 7.
	run("list_dir", map[string]any{"path": "d"}, "f (15 bytes)", "")
	finish()
	t.Logf("%d swaps, %d calls refused", swaps.Load(), refused)
}
