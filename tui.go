package main

import (
	"fmt"
	"io"
)

// runTUI starts the terminal UI.
func runTUI(cfg *Config, f *cliFlags, stdout, stderr io.Writer) int {
	fmt.Fprintln(stdout, `The terminal UI is not built yet. Run one turn headless instead:
  tact -p "what is 15*23"`)
	return exitOK
}
