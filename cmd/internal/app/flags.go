package app

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// urfave/cli works a flag's names out with a regular expression each time
// it asks for them (cli.FlagNames), and while it parses a command line it
// asks for those of every flag once for each flag: a third of the time of
// parsing one. The app's flags are wrapped so that their names are worked
// out once, as cli.FlagNames does; every other method is the flag's own.

type boolFlag struct {
	*cli.BoolFlag
	names []string
}

type stringFlag struct {
	*cli.StringFlag
	names []string
}

type stringSliceFlag struct {
	*cli.StringSliceFlag
	names []string
}

type durationFlag struct {
	*cli.DurationFlag
	names []string
}

type intFlag struct {
	*cli.IntFlag
	names []string
}

func (f *boolFlag) Names() []string        { return f.names }
func (f *stringFlag) Names() []string      { return f.names }
func (f *stringSliceFlag) Names() []string { return f.names }
func (f *durationFlag) Names() []string    { return f.names }
func (f *intFlag) Names() []string         { return f.names }

func init() { cli.HelpFlag, cli.VersionFlag = namedOnce(cli.HelpFlag), namedOnce(cli.VersionFlag) }

// namesOnce is flags, each wrapped by namedOnce.
func namesOnce(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		out[i] = namedOnce(f)
	}
	return out
}

// namedOnce wraps a flag of urfave/cli's so that it works its names out
// once; a flag of another kind, or one wrapped already, is f.
func namedOnce(f cli.Flag) cli.Flag {
	switch f := f.(type) {
	case *cli.BoolFlag:
		return &boolFlag{f, flagNames(f.Name, f.Aliases)}
	case *cli.StringFlag:
		return &stringFlag{f, flagNames(f.Name, f.Aliases)}
	case *cli.StringSliceFlag:
		return &stringSliceFlag{f, flagNames(f.Name, f.Aliases)}
	case *cli.DurationFlag:
		return &durationFlag{f, flagNames(f.Name, f.Aliases)}
	case *cli.IntFlag:
		return &intFlag{f, flagNames(f.Name, f.Aliases)}
	}
	return f
}

// plain is the urfave/cli flag a wrapped one wraps, or f: what a question
// about a flag's kind is asked of.
func plain(f cli.Flag) cli.Flag {
	switch w := f.(type) {
	case *boolFlag:
		return w.BoolFlag
	case *stringFlag:
		return w.StringFlag
	case *stringSliceFlag:
		return w.StringSliceFlag
	case *durationFlag:
		return w.DurationFlag
	case *intFlag:
		return w.IntFlag
	}
	return f
}

// flagNames is cli.FlagNames without its regular expression: each name
// up to its first comma or space.
func flagNames(name string, aliases []string) []string {
	out := make([]string, 0, 1+len(aliases))
	for _, n := range append([]string{name}, aliases...) {
		if i := strings.IndexAny(n, ", "); i >= 0 {
			n = n[:i]
		}
		out = append(out, n)
	}
	return out
}
