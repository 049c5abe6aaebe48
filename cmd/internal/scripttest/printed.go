package scripttest

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// printed is the script command
//
//	printed CODE SOURCE PREFIX ANSWER [NAME]
//
// which runs a command the engine printed, as a person copies it: the
// first line of SOURCE ("stdout", "stderr" or a file) that starts with
// PREFIX holds it after the prefix; when the prefix ends with a quote, as
// `"resume":"` does, the first line holding it has it as a JSON string. "<answer>" is replaced by ANSWER
// and "<one of: …>" by NAME; the line is split into words as a shell
// would (quotes and backslashes), and its exit code must be CODE. A
// placeholder left over fails the script: the command did not run as
// printed.
func printed(ts *testscript.TestScript, neg bool, args []string) { runPrinted(ts, neg, args, false) }

// printedAtTerminal is printed run as a person at a terminal (atterminal):
//
//	printed-at-terminal CODE SOURCE PREFIX ANSWER [NAME]
func printedAtTerminal(ts *testscript.TestScript, neg bool, args []string) {
	runPrinted(ts, neg, args, true)
}

func runPrinted(ts *testscript.TestScript, neg bool, args []string, atTerminal bool) {
	if neg || len(args) < 4 || len(args) > 5 {
		ts.Fatalf("usage: printed CODE SOURCE PREFIX ANSWER [NAME]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("printed: bad code %q", args[0])
	}
	line, found := "", false
	text, asJSON := ts.ReadFile(args[1]), strings.HasSuffix(args[2], `"`)
	for _, l := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimLeft(l, " "), args[2]); ok && !asJSON {
			line, found = rest, true
			break
		}
		if i := strings.Index(l, args[2]); i >= 0 && asJSON {
			// The JSON string starts at the prefix's last quote.
			err := json.NewDecoder(strings.NewReader(l[i+len(args[2])-1:])).Decode(&line)
			if err != nil {
				ts.Fatalf("printed: %q does not start a JSON string: %v", l[i:], err)
			}
			found = true
			break
		}
	}
	if !found {
		ts.Fatalf("printed: no line of %s holds %q", args[1], args[2])
	}
	line = strings.ReplaceAll(line, "<answer>", args[3])
	if i := strings.Index(line, "<one of: "); i >= 0 {
		j := strings.Index(line[i:], ">")
		if len(args) < 5 || j < 0 {
			ts.Fatalf("printed: %q asks for a name: give NAME", line)
		}
		line = line[:i] + args[4] + line[i+j+1:]
	}
	if strings.ContainsAny(line, "<>") {
		ts.Fatalf("printed: a placeholder is left in %q", line)
	}
	words, err := shellWords(line)
	if err != nil || len(words) == 0 {
		ts.Fatalf("printed: %q: %v", line, err)
	}
	ts.Logf("printed: %s", strings.Join(words, " | "))
	if atTerminal {
		words = terminalWords(ts, words)
	}
	execExit(ts, "printed", want, words)
}

// shellWords splits a command line as sh does its words: blanks separate
// them, single quotes keep everything, double quotes keep all but \" and
// \\, and a backslash outside quotes keeps the next character.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
				i++
				w.WriteByte(s[i])
			default:
				w.WriteByte(c)
			}
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, errors.New("unclosed quote")
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
