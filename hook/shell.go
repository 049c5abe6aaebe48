package hook

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shell command line is read with a real shell parser (mvdan.cc/sh), so
// that quoting, `bash -c '…'`, `env X=y …`, pipelines, `$(…)` and `;` do
// not hide an engine call from the guard. What a parser cannot know — a
// program named by a variable, a script file run by the shell — is treated
// as unknown: never a read.

// shellVerdict is what a command line does, as far as the guard can tell.
type shellVerdict struct {
	// forbidden is the engine call that answers, signs, trusts or approves
	// ("state resolve", "answer", "--always" …); "" when none.
	forbidden string
	// write is a protected path the command line writes by a redirection or
	// a file tool (tee, cp, mv, rm, sed -i …); "" when none seen.
	write string
	// readOnly reports whether every call is a read: the engine's read and
	// wait commands, or a file-reading tool with no redirection.
	readOnly bool
	// suspect is a program the parser cannot name in a call that mentions
	// the engine; it is forbidden when nothing more exact is.
	suspect string
}

// maxDepth bounds nested `sh -c` and `eval` (each level a fresh parse).
const maxDepth = 4

// analyzeShell reads a command line. protected says whether a path is one
// the agent must not write. A line that does not parse is unknown: not a
// read, and forbidden when it names the engine at all.
func analyzeShell(src string, protected func(string) bool) shellVerdict {
	v := shellVerdict{readOnly: true}
	walkShell(src, protected, &v, 0)
	if v.forbidden == "" {
		v.forbidden = v.suspect
	}
	return v
}

func walkShell(src string, protected func(string) bool, v *shellVerdict, depth int) {
	if depth > maxDepth {
		v.readOnly = false
		if mentionsEngine(src) {
			v.forbidden = "a nested engine call"
		}
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		v.readOnly = false
		if mentionsEngine(src) && v.forbidden == "" {
			v.forbidden = "an engine call in a command line the guard cannot read"
		}
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if writes(r.Op) {
					v.readOnly = false
					if t, ok := wordText(r.Word); ok && protected(t) && v.write == "" {
						v.write = t
					}
				}
			}
		case *syntax.CallExpr:
			callOf(n, src, protected, v, depth)
		case *syntax.FuncDecl, *syntax.ArithmCmd, *syntax.TestClause, *syntax.DeclClause, *syntax.LetClause,
			*syntax.CoprocClause:
			v.readOnly = false // not a read; the calls inside are visited all the same
		}
		return true
	})
}

// writes reports whether a redirection operator writes its target.
func writes(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob,
		syntax.RdrAllClob, syntax.AppAllClob:
		return true
	}
	return false
}

// callOf classifies one simple command.
func callOf(c *syntax.CallExpr, src string, protected func(string) bool, v *shellVerdict, depth int) {
	if len(c.Args) == 0 {
		if len(c.Assigns) > 0 {
			v.readOnly = false // an assignment changes the shell, harmless but not a read
		}
		return
	}
	args := make([]string, len(c.Args))
	literal := make([]bool, len(c.Args))
	for i, w := range c.Args {
		args[i], literal[i] = wordText(w)
	}
	args, literal = unwrap(args, literal)
	if len(args) == 0 {
		return
	}
	if !literal[0] { // a program named by a variable or a substitution
		v.readOnly = false
		text := strings.Join(args, " ")
		if a, b := int(c.Pos().Offset()), int(c.End().Offset()); a <= b && b <= len(src) {
			text = src[a:b]
		}
		if mentionsEngine(text) {
			v.suspect = "an engine call the guard cannot read" // unless a call inside says what it is
		}
		return
	}
	prog := path.Base(args[0])
	switch {
	case isShell(prog):
		if script, ok := dashC(args[1:]); ok {
			walkShell(script, protected, v, depth+1)
			return
		}
		v.readOnly = false // a script file: unknown
		return
	case prog == "eval":
		walkShell(strings.Join(args[1:], " "), protected, v, depth+1)
		return
	case isEngine(prog):
		e := classifyEngine(args[1:])
		if e.forbidden != "" && v.forbidden == "" {
			v.forbidden = e.forbidden
		}
		if !e.read {
			v.readOnly = false
		}
		return
	}
	for i, a := range args[1:] {
		if !literal[i+1] {
			continue
		}
		if p := strings.TrimPrefix(a, "of="); writer(prog, args[1:]) && protected(p) && v.write == "" {
			v.write = p
		}
	}
	if !readTool(prog, args[1:]) {
		v.readOnly = false
	}
}

// unwrap drops the programs that only run another one: env (with its
// assignments and options), command, exec, nohup, nice, time, timeout,
// stdbuf, sudo and doas (with their options).
func unwrap(args []string, literal []bool) ([]string, []bool) {
	for len(args) > 0 && literal[0] {
		prog := path.Base(args[0])
		skip := 1
		switch prog {
		case "env", "command", "exec", "nohup", "nice", "time", "stdbuf", "sudo", "doas", "builtin":
			for skip < len(args) && literal[skip] {
				a := args[skip]
				if a == "--" {
					skip++
					break
				}
				if strings.HasPrefix(a, "-") || (prog == "env" && strings.Contains(a, "=")) {
					skip++
					if (prog == "nice" && a == "-n") || (prog == "env" && a == "-u") || (prog == "sudo" && (a == "-u" || a == "-g")) {
						skip++
					}
					continue
				}
				break
			}
		case "xargs":
			for skip < len(args) && literal[skip] && strings.HasPrefix(args[skip], "-") {
				if strings.Contains("-I-n-P-L-d-E-s-a", args[skip]) && len(args[skip]) == 2 {
					skip++
				}
				skip++
			}
		case "go":
			// go run ./cmd/devrites-engine ARGS… runs the engine too.
			if len(args) > 2 && args[1] == "run" && literal[2] && isEngine(path.Base(args[2])) {
				args, literal = append([]string{"devrites-engine"}, args[3:]...), append([]bool{true}, literal[3:]...)
			}
			return args, literal
		case "timeout":
			for skip < len(args) && strings.HasPrefix(args[skip], "-") {
				skip++
			}
			skip++ // the duration
		default:
			return args, literal
		}
		if skip > len(args) {
			skip = len(args)
		}
		args, literal = args[skip:], literal[skip:]
	}
	return args, literal
}

func isShell(prog string) bool {
	switch prog {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "busybox":
		return true
	}
	return false
}

// isEngine reports whether a program's base name is the engine's binary.
func isEngine(prog string) bool {
	return prog == "devrites-engine" || strings.HasPrefix(prog, "devrites-engine.")
}

func mentionsEngine(s string) bool { return strings.Contains(s, "devrites-engine") }

// dashC finds the script of `sh -c SCRIPT` (also -lc, -ec, -xc …).
func dashC(args []string) (string, bool) {
	for i, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") {
			return "", false
		}
		if !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// engineCall is an engine command line's verdict.
type engineCall struct {
	forbidden string // what it would do for the person, "" when nothing
	read      bool   // a read or a wait
}

// globalValue are the engine's flags that take a value, where they may
// come before the command path (hook's --harness too).
var globalValue = map[string]bool{"--workspace": true, "--root": true, "--slug": true, "--lock-timeout": true, "--harness": true}

// classifyEngine reads the engine's arguments: the global flags, then the
// command path.
func classifyEngine(args []string) engineCall {
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--always" || strings.HasPrefix(a, "--always=") {
			return engineCall{forbidden: "--always"}
		}
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") {
			if globalValue[a] {
				i++
			}
			continue
		}
		words = append(words, a)
	}
	cmd, sub := "", ""
	if len(words) > 0 {
		cmd = words[0]
	}
	if len(words) > 1 {
		sub = words[1]
	}
	switch {
	case cmd == "state" && sub == "resolve":
		return engineCall{forbidden: "state resolve"}
	case cmd == "answer", cmd == "sign", cmd == "trust":
		if cmd == "trust" && onlyFlag(args, "--list") {
			return engineCall{read: true}
		}
		return engineCall{forbidden: cmd}
	case cmd == "question" && sub == "raise" && (hasFlag(args, "--answered") || hasFlag(args, "--choice")):
		// The interactive pick retyped by the model: with the hooks, the
		// question tool's PostToolUse records the person's own click.
		return engineCall{forbidden: "question raise --answered"}
	case cmd == "rules" && sub == "add":
		return engineCall{forbidden: "rules add"}
	case cmd == "hook" && sub != "status":
		// The hook itself too: an event the agent types on its stdin would
		// record its own words as the person's chat answer.
		return engineCall{forbidden: strings.TrimSpace("hook " + sub)}
	case cmd == "state" && (sub == "show" || sub == "check"),
		cmd == "questions" && (sub == "list" || sub == "show"),
		cmd == "qid" && sub == "next",
		cmd == "hook" && sub == "status",
		cmd == "wait", cmd == "help", cmd == "":
		return engineCall{read: true}
	case cmd == "doctor":
		return engineCall{read: !hasFlag(args, "--fix")}
	}
	return engineCall{}
}

func hasFlag(args []string, f string) bool {
	for _, a := range args {
		if a == f || strings.HasPrefix(a, f+"=") {
			return true
		}
	}
	return false
}

// onlyFlag reports whether f is given and no word but the command is.
func onlyFlag(args []string, f string) bool {
	n := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && a != "trust" {
			return false
		}
		if a == f {
			n++
		}
	}
	return n > 0
}

// readTool reports whether a program with these arguments only reads.
func readTool(prog string, args []string) bool {
	switch prog {
	case "cat", "head", "tail", "ls", "grep", "egrep", "fgrep", "rg", "wc", "pwd", "stat", "file", "echo",
		"printf", "true", "tree", "less", "more", "diff", "cmp", "sort", "uniq", "cut", "basename", "dirname",
		"realpath", "readlink", "which", "date", "jq":
		return true
	case "find":
		for _, a := range args {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
				return false
			}
		}
		return true
	case "sed":
		return !sedInPlace(args)
	case "git":
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			switch a {
			case "status", "log", "diff", "show", "blame", "grep", "ls-files", "rev-parse":
				return true
			}
			return false
		}
	}
	return false
}

func sedInPlace(args []string) bool {
	for _, a := range args {
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") ||
			(strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "i")) {
			return true
		}
	}
	return false
}

// writer reports whether a program writes the files its arguments name.
func writer(prog string, args []string) bool {
	switch prog {
	case "tee", "cp", "mv", "rm", "truncate", "ln", "install", "touch", "chmod", "dd", "rsync", "unlink":
		return true
	case "sed", "perl", "ruby":
		return sedInPlace(args)
	}
	return false
}

// wordText is a word's value when it has no expansion: literals, quotes
// and escapes resolved. ok is false when it holds a parameter, command or
// arithmetic expansion (the text is then the literal parts only).
func wordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	ok := true
	var part func(p syntax.WordPart, quoted bool)
	part = func(p syntax.WordPart, quoted bool) {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q, true)
			}
		default:
			ok = false
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	return b.String(), ok
}

// unescape drops the backslashes of a literal: any before a character
// outside quotes, and those before $ ` " \ and a newline inside double
// quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (!quoted || strings.IndexByte("$`\"\\\n", s[i+1]) >= 0) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
