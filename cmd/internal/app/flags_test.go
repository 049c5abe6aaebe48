package app

import (
	"io"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every flag of the app is wrapped, and names itself as urfave/cli's own
// FlagNames names it; so do -h and --version, and a name with a comma or a
// space in it (the old form urfave/cli cuts short).
func TestFlagNamesAsCLI(t *testing.T) {
	app := newApp(nil, io.Discard, io.Discard)
	flags := slices.Clone(app.Flags)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			flags = append(flags, c.Flags...)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	flags = append(flags, cli.VersionFlag,
		namedOnce(&cli.StringFlag{Name: "old, o", Aliases: []string{"x y", "z"}}), namedOnce(&cli.IntFlag{Name: "n"}))
	for _, f := range flags {
		var want []string
		switch f := f.(type) {
		case *boolFlag:
			want = cli.FlagNames(f.Name, f.Aliases)
		case *stringFlag:
			want = cli.FlagNames(f.Name, f.Aliases)
		case *stringSliceFlag:
			want = cli.FlagNames(f.Name, f.Aliases)
		case *durationFlag:
			want = cli.FlagNames(f.Name, f.Aliases)
		case *intFlag:
			want = cli.FlagNames(f.Name, f.Aliases)
		default:
			t.Fatalf("%T %v: not wrapped", f, f.Names())
		}
		if got := f.Names(); !slices.Equal(got, want) {
			t.Errorf("%v: names %q, urfave/cli says %q", want, got, want)
		}
	}
	if len(flags) < 60 {
		t.Fatalf("only %d flags looked at", len(flags))
	}
}

// A flag's bad value is worded by its kind, for the wrapped flags too
// (-h is one of them).
func TestFlagMessageWrapped(t *testing.T) {
	for msg, want := range map[string]string{
		`invalid boolean value "maybe" for -help: parse error`:     `--help "maybe": want true or false`,
		`invalid boolean value "maybe" for -quiet: parse error`:    `--quiet "maybe": want true or false`,
		`invalid value "soon" for flag -lock-timeout: parse error`: `--lock-timeout "soon": want a duration such as 10s or 2m`,
		`invalid value "x" for flag -nonesuch: parse error`:        `--nonesuch "x": want a valid value`,
	} {
		if got := flagMessage(msg); got != want {
			t.Errorf("%s: got %q, want %q", msg, got, want)
		}
	}
}
