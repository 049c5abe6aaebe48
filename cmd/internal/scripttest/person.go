package scripttest

import (
	"os/exec"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// atTerminal is the script command
//
//	atterminal CODE PROGRAM ARGS…
//
// which runs PROGRAM as a person at a terminal does: in a new
// pseudo-terminal that is its stdin, stdout and controlling terminal
// (util-linux script(1)), and asserts its exit code. The terminal's output
// (stdout and stderr together) is the command's stdout. Scripts that need it start with [exec:script].
func atTerminal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: atterminal CODE PROGRAM ARGS…")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("atterminal: bad code %q", args[0])
	}
	execExit(ts, "atterminal", want, terminalWords(ts, args[1:]))
}

// terminalWords is the command line that runs args in a new
// pseudo-terminal.
func terminalWords(ts *testscript.TestScript, args []string) []string {
	if _, err := exec.LookPath("script"); err != nil {
		ts.Fatalf("script(1) is not installed: guard the script with [exec:script]")
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// stty -onlcr: the terminal passes "\n" as it is, so the output reads
	// as a file's lines.
	return []string{"script", "-qec", "stty -onlcr; " + strings.Join(words, " "), "/dev/null"}
}
