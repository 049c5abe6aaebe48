package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/hook"
	"github.com/devrites/devrites-engine/machine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

func hookCommands() []*cli.Command {
	scope := &cli.StringFlag{Name: "scope", Value: "project", Usage: "project (.claude/settings.json, .codex/hooks.json) or user (in your home)"}
	dry := &cli.BoolFlag{Name: "dry-run", Usage: "print the settings file as it would be, and write nothing"}
	return []*cli.Command{{
		Name: "hook", Usage: "answer one Claude Code or Codex hook event (JSON on stdin): keep the pause, record the person's chat answer",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "harness", Value: "claude-code", Usage: "claude-code or codex"}},
		Action: cmdHook,
		Subcommands: []*cli.Command{
			{
				Name: "install", Usage: "add the engine's hooks to the harness's settings file, keeping everything else",
				ArgsUsage: "claude-code|codex", Flags: []cli.Flag{scope, dry}, Action: cmdHookInstall,
			},
			{
				Name: "uninstall", Usage: "remove exactly the engine's hooks from the harness's settings file",
				ArgsUsage: "claude-code|codex", Flags: []cli.Flag{scope, dry}, Action: cmdHookInstall,
			},
			{Name: "status", Usage: "which of the engine's hooks each harness's settings files hold", Action: cmdHookStatus},
		},
	}}
}

// harnessOf is the harness a flag or argument names.
func harnessOf(name string) (hook.Harness, error) {
	h, ok := hook.Harnesses[name]
	if !ok {
		return nil, mdstore.WithHint(mdstore.Errorf(engine.ErrBadArgs, "unknown harness %q", name),
			"use one of "+strings.Join(hook.Names, ", "))
	}
	return h, nil
}

// cmdHook answers one event. What it prints and its exit code are the
// harness's contract (hook/doc.go); it never prints the engine's warnings,
// which a harness could read as its answer.
func cmdHook(c *cli.Context) error {
	if c.NArg() > 0 {
		return mdstore.WithHint(mdstore.Errorf(errUsage, "unknown hook command %q", c.Args().First()),
			"use hook install, hook uninstall or hook status; a harness runs hook with no arguments")
	}
	h, err := harnessOf(c.String("harness"))
	if err != nil {
		return err
	}
	e, err := envOf(c)
	if err != nil {
		return err
	}
	in, err := io.ReadAll(io.LimitReader(e.stdin, 16<<20))
	if err != nil {
		return err
	}
	out := hook.Handle(e.ctx, h, in, hookEnv(c, e))
	_, _ = e.stdout.Write(out.Stdout)
	if out.Stderr != "" {
		fmt.Fprintln(e.stderr, out.Stderr)
	}
	if out.Exit != 0 {
		return status(out.Exit)
	}
	return nil
}

// hookEnv is what a hook call needs of the command line: the global flags
// and environment, from the project the harness names.
func hookEnv(c *cli.Context, e *env) hook.Env {
	return hook.Env{
		Getenv: os.Getenv,
		Locate: func(dir string) mdstore.Locator {
			loc := locatorOf(c)
			loc.Dir = dir
			return loc
		},
		Open: func(ws *mdstore.Workspace) (*engine.Engine, error) {
			return engine.Open(ws, e.now, hookLockTimeout(c), os.Getenv("DEVRITES_ACTOR"))
		},
		Answerer: chatAnswerer,
	}
}

// hookLockTimeout is how long a chat answer waits for the workspace lock:
// well inside the harness's 10-second timeout, so that a busy workspace is
// told to the person rather than cut off by the harness (which would let
// the prompt through unrecorded). --lock-timeout, when given, wins.
func hookLockTimeout(c *cli.Context) time.Duration {
	if c.IsSet("lock-timeout") {
		return c.Duration("lock-timeout")
	}
	return 4 * time.Second
}

// chatAnswerer is answered_by for the person's chat answers: this machine's
// configured name, else "human" as at the terminal (docs/harness.md).
func chatAnswerer() (string, error) {
	cfg, err := machine.Load()
	if err != nil {
		return "", err
	}
	if cfg.Name == "" {
		return "human", nil
	}
	return cfg.Name, nil
}

// settingsPath is the settings file of a harness and scope.
func settingsPath(c *cli.Context, h hook.Harness, scope string) (string, error) {
	if scope != "project" && scope != "user" {
		return "", mdstore.WithHint(mdstore.Errorf(engine.ErrBadArgs, "unknown --scope %q", scope), "use project or user")
	}
	home, err := os.UserHomeDir()
	if err != nil && scope == "user" {
		return "", mdstore.Errorf(engine.ErrBadArgs, "--scope user: %v", err)
	}
	project, err := mdstore.ProjectDir(locatorOf(c))
	if err != nil {
		return "", err
	}
	return h.Settings(scope, project, home, os.Getenv), nil
}

func cmdHookInstall(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	verb := c.Command.Name
	if c.NArg() != 1 {
		return mdstore.WithHint(mdstore.Errorf(errUsage, "want the harness, got %s", question.Plural(c.NArg(), "argument")),
			"devrites-engine hook "+verb+" claude-code   (or codex)")
	}
	h, err := harnessOf(c.Args().First())
	if err != nil {
		return err
	}
	path, err := settingsPath(c, h, c.String("scope"))
	if err != nil {
		return err
	}
	do := hook.Install
	if verb == "uninstall" {
		do = hook.Uninstall
	}
	ch, err := do(h, path, c.Bool("dry-run"))
	if err != nil {
		return settingsErr(err)
	}
	var b strings.Builder
	switch {
	case c.Bool("dry-run") && !e.json:
		fmt.Fprintf(&b, "%s would be:\n%s", path, ch.Text)
	case !ch.Changed && verb == "install":
		fmt.Fprintf(&b, "%s hooks already installed in %s\n", h.Name(), path)
	case !ch.Changed:
		fmt.Fprintf(&b, "no %s hooks of the engine in %s\n", h.Name(), path)
	default:
		fmt.Fprintf(&b, "%sed %s hooks in %s: %s\n", verb, h.Name(), path, strings.Join(ch.Events, ", "))
	}
	if verb == "install" && !c.Bool("dry-run") {
		if _, err := exec.LookPath("devrites-engine"); err != nil {
			e.warn([]string{"devrites-engine is not on PATH: the harness cannot run the hook, and a hook it cannot run lets every call through"})
		}
		if h.Name() == "codex" && ch.Changed {
			b.WriteString("Codex runs a new or changed hook only after a person reviews and trusts it: open /hooks in Codex\n")
		}
	}
	e.print(ch, b.String())
	return nil
}

// settingsErr words a refused settings file: exit 6, nothing written.
func settingsErr(err error) error {
	var se *hook.SettingsError
	if errors.As(err, &se) {
		return mdstore.WithHint(mdstore.Errorf(engine.ErrMalformed, "%v", err),
			"nothing was written; mend the file (or move it aside) and run the command again")
	}
	return err
}

func cmdHookStatus(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	var all []hook.State
	var b strings.Builder
	for _, name := range hook.Names {
		h := hook.Harnesses[name]
		for _, scope := range []string{"project", "user"} {
			path, err := settingsPath(c, h, scope)
			if err != nil {
				return err
			}
			st, err := hook.Status(h, path)
			if err != nil {
				return settingsErr(err)
			}
			st.Scope = scope
			all = append(all, st)
			what := "not installed"
			switch {
			case len(st.Missing) == 0:
				what = "installed: " + strings.Join(st.Installed, ", ")
			case len(st.Installed) > 0:
				what = "partly installed: " + strings.Join(st.Installed, ", ") + "; missing: " + strings.Join(st.Missing, ", ")
			}
			fmt.Fprintf(&b, "%-11s %-7s %s: %s\n", name, scope, filepath.Clean(path), what)
		}
	}
	e.print(all, b.String())
	return nil
}

func init() {
	examples["hook"] = "devrites-engine hook install claude-code"
	examples["hook install"] = "devrites-engine hook install codex --scope user --dry-run"
	examples["hook uninstall"] = "devrites-engine hook uninstall claude-code"
	examples["hook status"] = "devrites-engine hook status --json"
}

// chatForms is the raise's line of chat answer forms, printed only where
// the hooks that record them are installed (docs/harness.md).
func chatForms(eng *engine.Engine) string {
	home, _ := os.UserHomeDir()
	if !hook.Installed(eng.WS.Project, home, os.Getenv) {
		return ""
	}
	return "in the chat: " + hook.Forms + "\n"
}
