package app

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/mdstore"
)

// textCommands take free text after their first argument (the qid): there,
// a word that is one of the command's own flags is refused rather than
// moved, since an unquoted answer such as "run it with --drop of the old
// table" must never turn into a drop; any other word, "-5" or "--force"
// included, is text. Global (output) flags still count anywhere, and "--"
// ends flags.
var textCommands = map[string]bool{"state resolve": true}

// recordFlags are words refused after the qid although the command has no
// such flag: they read as a choice being recorded (docs/guarantees.md).
var recordFlags = map[string]bool{"choice": true}

// normalizeArgs lets flags come anywhere, as the specification asks: it moves
// global flags before the command path and command flags before the
// positional arguments, which it puts after "--" so that none of them is
// taken for a flag. A "--" given by the caller ends flags for good: what
// follows it stays positional even when it starts with "-". It refuses
// arguments that are not valid UTF-8, and command flags among the text of
// a textCommands command. It also returns the command path ("state
// resolve"), for errors that urfave/cli reports before the command runs.
func normalizeArgs(app *cli.App, args []string) (_ []string, cmd string, _ error) {
	if len(args) == 0 || args[len(args)-1] == "--generate-bash-completion" {
		return args, "", nil // completion asks about the words as typed
	}
	var globals, path, flags, positional []string
	cmdFlags := []cli.Flag(nil)
	subs := app.Commands
	leaf := false
	// One walk over the words: each is checked for UTF-8 where it is read.
	for i := 1; i < len(args); i++ {
		a := args[i]
		if err := validWord(args, i, path); err != nil {
			return nil, "", err
		}
		if a == "--" {
			for j := i + 1; j < len(args); j++ {
				if err := validWord(args, j, path); err != nil {
					return nil, "", err
				}
			}
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f, global := lookupFlag(cmdFlags, name), false
			if f == nil {
				f, global = lookupFlag(app.Flags, name), true
			}
			if full := strings.Join(path, " "); textCommands[full] && len(positional) > 0 {
				switch {
				case recordFlags[name] || f != nil && !global && f != cli.HelpFlag:
					given := a
					if !hasValue && takesValue(f) {
						given += " " + valueName(name)
					}
					use := "to use the flag, give it before the qid: devrites-engine " + full + " " + given + " <qid> …"
					if recordFlags[name] {
						use = "an option number alone picks the option: devrites-engine " + full + " <qid> 2"
					}
					return nil, full, &cmdError{full, mdstore.Errorf(errUsage, "%s after the qid: a flag there would change what is recorded", a).
						Hint("to record it as words of the answer, put -- before the answer: devrites-engine "+full+" <qid> -- …", use)}
				case f == nil || f == cli.HelpFlag || !trailing(args[i:], app.Flags):
					// Words of the answer: -h and --help, a one-letter flag
					// (-q), and an output flag followed by more words.
					positional = append(positional, a)
					continue
				}
			}
			take := []string{a}
			if f != nil && !hasValue && takesValue(f) {
				if i+1 >= len(args) {
					return nil, "", usageAt(path, mdstore.Errorf(errUsage, "flag --%s needs a value", strings.TrimLeft(name, "-")))
				}
				if err := validWord(args, i+1, path); err != nil {
					return nil, "", err
				}
				take = append(take, args[i+1])
				i++
			}
			if global && f != nil {
				globals = append(globals, take...)
			} else {
				flags = append(flags, take...)
			}
			continue
		}
		if !leaf && len(positional) == 0 {
			if c := findCommand(subs, a); c != nil {
				path = append(path, a)
				cmdFlags, subs = c.Flags, c.Subcommands
				leaf = len(subs) == 0
				continue
			}
			// A mistyped command: said before any flag after it is read
			// for a command that is not there.
			return nil, strings.Join(path, " "), unknownCommand(path, subs, a)
		}
		positional = append(positional, a)
	}
	out := append([]string{args[0]}, globals...)
	out = append(out, path...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out, strings.Join(path, " "), nil
}

// validWord refuses args[i] when it is not valid UTF-8, naming it as the
// person typed it: a flag, the value of the flag before it, or its place.
func validWord(args []string, i int, path []string) error {
	a := args[i]
	if utf8.ValidString(a) {
		return nil
	}
	what := fmt.Sprintf("argument %d", i)
	if i > 1 && args[i-1] != "--" && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=") {
		what = "the value of " + args[i-1]
	} else if strings.HasPrefix(a, "-") {
		what, _, _ = strings.Cut(a, "=")
	}
	return usageAt(path, mdstore.Errorf(errUsage, "%s is not valid UTF-8", what))
}

// trailing reports whether rest, from a global flag after the text of a
// textCommands command, is only global flags, each written in full ("--"
// and its name) and with its value: output flags count after an answer
// only where they end the command line (… 2 --json).
func trailing(rest []string, globals []cli.Flag) bool {
	for i := 0; i < len(rest); i++ {
		name, _, hasValue := strings.Cut(strings.TrimPrefix(rest[i], "--"), "=")
		f := lookupFlag(globals, name)
		if !strings.HasPrefix(rest[i], "--") || len(name) < 2 || f == nil || f == cli.HelpFlag {
			return false
		}
		if !hasValue && takesValue(f) {
			i++ // its value
		}
	}
	return true
}

// valueName is how a hint writes the value of the flag name.
func valueName(name string) string {
	switch name {
	case "by":
		return "NAME"
	case "batch":
		return "FILE"
	}
	return "VALUE"
}

// unknownCommand is the error of a word that is no command of path, whose
// commands are subs.
func unknownCommand(path []string, subs []*cli.Command, word string) error {
	if len(path) == 0 {
		err := mdstore.Errorf(errUsage, "unknown command %q", word)
		if s := didYouMean(subs, word); s != "" {
			err.Hint(s)
		}
		return err.Hint("run: devrites-engine help")
	}
	err := mdstore.Errorf(errUsage, "unknown subcommand %q", word)
	if s := didYouMean(subs, word); s != "" {
		err.Hint(s)
	}
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.Name
	}
	return &cmdError{strings.Join(path, " "), err.Hint("one of: " + strings.Join(names, ", "))}
}

// usageAt names the command path in err, when there is one.
func usageAt(path []string, err error) error {
	if len(path) == 0 {
		return err
	}
	return &cmdError{strings.Join(path, " "), err}
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	if name == "h" || name == "help" {
		return cli.HelpFlag
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}
