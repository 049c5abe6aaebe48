package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Main runs the program on the process's arguments and standard streams,
// and exits with its code: the whole of a main.
func Main() {
	os.Exit(Run(context.Background(), os.Args, os.Stdin, os.Stdout, os.Stderr))
}

// Run is the whole program; Main only exits with what it returns.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	asJSON := false
	for _, a := range args {
		if a == "--" {
			break
		}
		if name, value, set := strings.Cut(strings.TrimLeft(a, "-"), "="); strings.HasPrefix(a, "-") && name == "json" {
			on, err := strconv.ParseBool(value)
			asJSON = !set || err == nil && on // --json, --json=1, --json=true
		}
	}
	args, path, err := normalizeArgs(app, args)
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	warnings := *app.Metadata["warnings"].(*[]string)
	if err != nil { // a warning that repeats the error's own words goes
		words := err.Error()
		if ce := (*cmdError)(nil); errors.As(err, &ce) {
			words = ce.err.Error()
		}
		warnings = slices.DeleteFunc(warnings, func(w string) bool { return strings.Contains(w, words) })
	}
	var ce *cmdError
	if err != nil && path != "" && !errors.As(err, &ce) && errors.Is(err, errUsage) {
		err = &cmdError{path, err} // a global flag's error, parsed before the command
	}
	var s status
	if err == nil || errors.As(err, &s) {
		PrintWarnings(stderr, warnings)
		return int(s) // exitOK when err is nil
	}
	if !errors.As(err, &ce) && !errors.Is(err, errUsage) {
		err = mdstore.Errorf(errUsage, "%w", err) // urfave's own parse errors
	}
	scope, _ := app.Metadata["scope"].(string)
	return report(stderr, asJSON, err, warnings, scope)
}

// PrintWarnings prints warnings as every command does.
func PrintWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, "devrites-engine: warning: "+s)
	}
}

// env is what every command gets: the global options and the I/O streams.
type env struct {
	ctx      context.Context
	c        *cli.Context
	stdin    io.Reader
	stdout   io.Writer
	stderr   io.Writer
	json     bool
	quiet    bool
	warnings *[]string // see warn
	now      func() time.Time
}

var globalFlags = []cli.Flag{
	&cli.StringFlag{Name: "workspace", Usage: "feature directory to act on (else $DEVRITES_WORKSPACE)"},
	&cli.StringFlag{Name: "root", Usage: "project directory or its .devrites (else $DEVRITES_ROOT)"},
	&cli.StringFlag{Name: "slug", Usage: "feature slug (else .devrites/ACTIVE)"},
	&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
	&cli.DurationFlag{Name: "lock-timeout", Value: 10 * time.Second, Usage: "how long to wait for the workspace lock"},
	&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success (errors and warnings still print)"},
	&cli.StringFlag{Name: "fingerprint", Usage: "the question meant, when a merge gave its id to another: its fingerprint (8 or more hex digits)"},
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:            "devrites-engine",
		Usage:           "own the state of a DevRites markdown workspace: HITL questions, state.md, notify",
		Version:         version(),
		Flags:           append(slices.Clone(globalFlags), cli.HelpFlag), // our own help command hides urfave's flag otherwise
		Writer:          stdout,
		ErrWriter:       stderr,
		Reader:          stdin,
		HideHelpCommand: true,
		// An option such as "Round half up — simpler, biased" keeps its comma.
		DisableSliceFlagSeparator: true,
		ExitErrHandler:            func(*cli.Context, error) {}, // only main exits
		Commands:                  append(append(append(commands(), personCommands()...), relayCommands()...), helpCommands()...),
		EnableBashCompletion:      true,
		Metadata:                  map[string]any{"warnings": new([]string)},
	}
	app.CustomAppHelpTemplate = cli.AppHelpTemplate + "\nEXAMPLE:\n   " + examples["question raise"] + "\n"
	var wire func(cmds []*cli.Command, path string)
	wire = func(cmds []*cli.Command, path string) {
		for _, c := range cmds {
			full := strings.TrimSpace(path + " " + c.Name)
			c.OnUsageError = usageError(full, c.Flags)
			c.HideHelpCommand = true // "init h" is a slug, not a request for help; -h and --help remain
			c.CustomHelpTemplate = helpTemplate(c, full)
			if c.Action != nil {
				c.Action = wrap(full, c.Action)
			} else if len(c.Subcommands) > 0 {
				names := make([]string, len(c.Subcommands))
				for i, s := range c.Subcommands {
					names[i] = s.Name
				}
				c.Action = func(cc *cli.Context) error {
					if cc.Args().Present() {
						return unknownCommand(strings.Fields(full), c.Subcommands, cc.Args().First())
					}
					return &cmdError{full, mdstore.Errorf(errUsage, "missing subcommand").Hint("one of: " + strings.Join(names, ", "))}
				}
			}
			wire(c.Subcommands, full)
		}
	}
	wire(app.Commands, "")
	app.OnUsageError = usageError("", nil)
	app.CommandNotFound = func(c *cli.Context, name string) {}
	app.Action = func(c *cli.Context) error {
		if c.Args().Present() {
			return unknownCommand(nil, c.App.Commands, c.Args().First())
		}
		return cli.ShowAppHelp(c)
	}
	return app
}

// usageError words a flag error of cmd, whose own flags are flags; a
// suggestion is drawn from them and the global flags.
func usageError(cmd string, flags []cli.Flag) cli.OnUsageErrorFunc {
	return func(_ *cli.Context, err error, _ bool) error {
		msg := flagMessage(err.Error())
		e := mdstore.Errorf(errUsage, "%s", msg)
		if s := flagSuggestion(append(slices.Clip(flags), globalFlags...), msg); s != "" {
			e.Hint(s)
		}
		if cmd == "" {
			return e
		}
		return &cmdError{cmd, e}
	}
}

// flagMessage rewords the flag package's messages, which name every flag
// with one dash, as the flags are written: --json.
func flagMessage(msg string) string {
	for _, p := range []struct{ prefix, say string }{
		{"flag provided but not defined: -", "unknown flag --%s"},
		{"flag needs an argument: -", "flag --%s needs a value"},
	} {
		if name, ok := strings.CutPrefix(msg, p.prefix); ok {
			return fmt.Sprintf(p.say, strings.TrimPrefix(name, "-"))
		}
	}
	// invalid value "abc" for flag -lock-timeout: parse error
	// invalid boolean value "maybe" for -quiet: parse error
	for _, p := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, p)
		if !ok {
			continue
		}
		k := strings.LastIndex(rest, " for ") // a value may hold " for " itself
		if k < 0 {
			continue
		}
		value, flag := rest[:k], rest[k+len(" for "):]
		flag, _, _ = strings.Cut(strings.TrimPrefix(strings.TrimPrefix(flag, "flag "), "-"), ":")
		name := strings.TrimPrefix(flag, "-")
		want := "a valid value"
		switch lookupFlag(allFlags(), name).(type) {
		case *cli.DurationFlag:
			want = "a duration such as 10s or 2m"
		case *cli.IntFlag:
			want = "a whole number"
		case *cli.BoolFlag:
			want = "true or false"
		}
		return fmt.Sprintf("--%s %s: want %s", name, value, want)
	}
	return msg
}

// allFlags are the flags of every command and the global ones.
func allFlags() []cli.Flag {
	out := append([]cli.Flag(nil), globalFlags...)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			out = append(out, c.Flags...)
			walk(c.Subcommands)
		}
	}
	walk(commands())
	return out
}

// wrap gives an action its env and names the command in its errors.
func wrap(cmd string, action cli.ActionFunc) cli.ActionFunc {
	return func(c *cli.Context) error {
		err := action(c)
		var s status
		if err == nil || errors.As(err, &s) {
			return err
		}
		return &cmdError{cmd, err}
	}
}

// unquotedHints say, for the commands whose text an agent passes in a
// flag, how to quote it when stray words came after it.
var unquotedHints = map[string]string{
	"question raise":           `quote the question: --question "…"`,
	"recovery fingerprint":     `quote the command: --command "…"`,
	"recovery resolver-failed": `quote the command: --command "…"`,
}

// commandPath is the command c runs, as typed: "question raise".
func commandPath(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != c.App.Name {
			names = append([]string{x.Command.Name}, names...)
		}
	}
	return strings.Join(names, " ")
}

// envOf reads the global options; an explicit flag beats the environment.
func envOf(c *cli.Context) (*env, error) {
	now, err := qid.Clock(os.Getenv("DEVRITES_NOW"))
	if err != nil {
		return nil, mdstore.Errorf(engine.ErrBadArgs, "%w", err)
	}
	// A flag given with an empty value is a slip, never "the default".
	for _, name := range []string{"workspace", "root", "slug", "by", "event", "listen", "fingerprint"} {
		if c.IsSet(name) && strings.TrimSpace(c.String(name)) == "" {
			return nil, mdstore.Errorf(errUsage, "--%s is empty", name)
		}
	}
	if c.Duration("lock-timeout") < 0 {
		return nil, mdstore.Errorf(errUsage, "--lock-timeout %s is negative", c.Duration("lock-timeout"))
	}
	// A command without arguments refuses one: words an agent left
	// unquoted are never dropped in silence.
	if c.NArg() > 0 && c.Command.ArgsUsage == "" {
		err := mdstore.Errorf(errUsage, "unexpected argument %q", c.Args().First())
		if hint, ok := unquotedHints[commandPath(c)]; ok {
			err = err.Hint(hint)
		}
		return nil, err
	}
	app := c.App
	app.Metadata["scope"] = scopeOf(c)
	return &env{ctx: c.Context, c: c, stdin: app.Reader, stdout: app.Writer, stderr: app.ErrWriter,
		json: c.Bool("json"), quiet: c.Bool("quiet"), now: now, warnings: app.Metadata["warnings"].(*[]string)}, nil
}

func (e *env) locator() mdstore.Locator { return locatorOf(e.c) }

// scopeOf is the workspace flags of c as a hint repeats them ("--slug pay
// "), or "" when none was given.
func scopeOf(c *cli.Context) string {
	var out string
	for _, name := range []string{"workspace", "root", "slug"} {
		if c.IsSet(name) {
			out += "--" + name + " " + shellQuote(c.String(name)) + " "
		}
	}
	return out
}

// locatorOf reads --workspace, --root and --slug from c, else
// DEVRITES_WORKSPACE or DEVRITES_ROOT, from the current directory.
func locatorOf(c *cli.Context) mdstore.Locator {
	return locate(c.String("workspace"), c.String("root"), c.String("slug"))
}

// locate is the locator of the flags' values, else of DEVRITES_WORKSPACE or
// DEVRITES_ROOT, from the current directory. A flag always beats the
// environment (docs/commands.md, "Choosing the workspace"): with --slug,
// DEVRITES_WORKSPACE no longer names the feature, only the project it
// lies in (when --root and DEVRITES_ROOT do not name one), so a printed
// `… --slug feat-c …` acts on feat-c in a shell set up for feat-a.
func locate(workspace, root, slug string) mdstore.Locator {
	wd, _ := os.Getwd()
	loc := mdstore.Locator{Workspace: workspace, Root: root, Slug: slug, Dir: wd}
	if loc.Workspace != "" || loc.Root != "" {
		return loc
	}
	envWorkspace := os.Getenv("DEVRITES_WORKSPACE")
	if loc.Slug == "" && envWorkspace != "" {
		loc.Workspace = envWorkspace
		return loc
	}
	loc.Root = os.Getenv("DEVRITES_ROOT")
	if loc.Root == "" && envWorkspace != "" {
		loc.Root = projectOfFeature(envWorkspace)
	}
	return loc
}

// projectOfFeature is the .devrites directory a feature directory
// (.devrites/work/<slug> or .devrites/features/<slug>) lies in, else "":
// then the walk up from the current directory finds the project.
func projectOfFeature(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if p := filepath.Dir(filepath.Dir(abs)); filepath.Base(p) == ".devrites" {
		return p
	}
	return ""
}

// open finds the workspace and prepares the engine.
func (e *env) open() (*engine.Engine, error) {
	ws, err := e.workspace()
	if err != nil {
		return nil, err
	}
	return e.engineOf(ws)
}

// engineOf prepares the engine of a found workspace, with the warnings of
// its configuration.
func (e *env) engineOf(ws *mdstore.Workspace) (*engine.Engine, error) {
	eng, err := engine.Open(ws, e.now, e.c.Duration("lock-timeout"), os.Getenv("DEVRITES_ACTOR"))
	if err != nil {
		return nil, err
	}
	eng.Pick = e.c.String("fingerprint")
	e.warn(eng.Templates.Warnings)
	if err := eng.ConfigErr(); err != nil {
		e.warn([]string{err.Error() + "; nothing is written until it is fixed"})
	}
	return eng, nil
}

// workspace finds the workspace to act on.
func (e *env) workspace() (*mdstore.Workspace, error) { return mdstore.Find(e.locator()) }

// print writes v as JSON, or text for people (unless --quiet).
func (e *env) print(v any, text string) {
	if e.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false) // "<answer>" stays readable
		enc.SetIndent("", "  ")
		_ = enc.Encode(v)
		return
	}
	if !e.quiet && text != "" {
		fmt.Fprint(e.stdout, text)
		if !strings.HasSuffix(text, "\n") {
			fmt.Fprintln(e.stdout)
		}
	}
}

// warn keeps warnings for the end of the command: after its output, or
// after the decisive line of an error (which stays the first line on
// stderr), or inside the JSON error object. A warning kept already is not
// kept again: the project's files warn once, however many of its
// workspaces a command opens.
func (e *env) warn(ws []string) {
	for _, w := range ws {
		if !slices.Contains(*e.warnings, w) {
			*e.warnings = append(*e.warnings, w)
		}
	}
}

// flushWarnings prints the warnings kept so far, for a person answering
// one question after another.
func (e *env) flushWarnings() {
	PrintWarnings(e.stderr, *e.warnings)
	*e.warnings = (*e.warnings)[:0]
}

// color reports whether stdout may carry ANSI colour.
func (e *env) color() bool {
	if e.json || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(e.stdout)
}
