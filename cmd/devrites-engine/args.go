package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// normalizeArgs lets flags come anywhere, as the specification asks: it moves
// global flags before the command path and command flags before the
// positional arguments, which it puts after "--" so that none of them is
// taken for a flag. A "--" given by the caller ends flags for good: what
// follows it stays positional even when it starts with "-".
func normalizeArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	var globals, path, flags, positional []string
	cmdFlags := []cli.Flag(nil)
	subs := app.Commands
	leaf := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) > 1 && strings.HasPrefix(a, "-") {
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			f, global := lookupFlag(cmdFlags, name), false
			if f == nil {
				f, global = lookupFlag(app.Flags, name), true
			}
			take := []string{a}
			if f != nil && !hasValue && takesValue(f) && i+1 < len(args) {
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
	return out
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
