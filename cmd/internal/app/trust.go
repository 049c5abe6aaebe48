package app

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/trust"
)

// trustCommands is `trust`: this machine's person vouches for the content
// of a workspace file that runs a command or approves (docs/trust.md).
func trustCommands() []*cli.Command {
	return []*cli.Command{{
		Name:      "trust",
		Usage:     "trust a file's current content on this machine (its notify command runs, its approvals apply); without FILE, the project's .devrites/AFK, notify.yaml, rules.yaml and allowed_signers",
		ArgsUsage: "[FILE…]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "list", Usage: "every trusted file, and whether it changed since"},
			&cli.StringFlag{Name: "revoke", Usage: "forget FILE: it is untrusted again"},
		},
		Action: cmdTrust,
	}}
}

// trustedFiles are the files of .devrites that trust covers.
var trustedFiles = []string{"AFK", "notify.yaml", config.RulesFile, engine.AllowedSignersFile}

func cmdTrust(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	store, err := trust.Open()
	if err != nil {
		return mdstore.Errorf(engine.ErrBadArgs, "%v", err).Hint("set HOME (or XDG_CONFIG_HOME) to your home directory")
	}
	switch {
	case c.Bool("list") && (c.IsSet("revoke") || c.NArg() > 0):
		return mdstore.Errorf(errUsage, "--list takes no FILE and no --revoke")
	case c.Bool("list"):
		return trustList(e, store)
	case c.IsSet("revoke") && c.NArg() > 0:
		return mdstore.Errorf(errUsage, "--revoke takes one FILE, not also %q", c.Args().First())
	case c.IsSet("revoke"):
		return trustRevoke(e, store, c.String("revoke"))
	}
	if err := needPerson(e, "trust"); err != nil {
		return err
	}
	files := c.Args().Slice()
	if len(files) == 0 {
		if files, err = projectConfigFiles(e); err != nil {
			return err
		}
	}
	// What a trusted command runs is trusted with it (docs/trust.md):
	// the project files the notify command names follow their file.
	for _, f := range files {
		for _, cf := range config.CommandFiles(f) {
			if !slices.Contains(files, cf) {
				files = append(files, cf)
			}
		}
	}
	// Every file is checked before any is trusted: a typo among them
	// trusts nothing.
	for _, f := range files {
		if err := trustable(f); err != nil {
			return err
		}
	}
	var b strings.Builder
	var entries []trust.Entry
	for _, f := range files {
		en, err := store.Trust(f)
		if err != nil {
			return err
		}
		entries = append(entries, en)
		fmt.Fprintf(&b, "trusted %s (sha256 %s)\n", en.Path, en.SHA256[:12])
	}
	e.print(map[string]any{"trusted": entries, "store": store.Path()}, b.String())
	return nil
}

// trustable refuses a file that cannot be trusted: missing, not regular.
func trustable(f string) error {
	fi, err := os.Lstat(f)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return mdstore.Errorf(mdstore.ErrMissing, "%s: no such file", f).Hint("name a file that exists, such as .devrites/AFK")
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return mdstore.Errorf(engine.ErrBadArgs, "%s: a symbolic link is never trusted", f).
			Hint("a workspace configuration file is a file of its own project: copy it, do not link it (docs/trust.md)")
	case !fi.Mode().IsRegular():
		return mdstore.Errorf(engine.ErrBadArgs, "%s: not a regular file", f)
	}
	_, err = trust.Key(f)
	return err
}

// projectConfigFiles are the files of trustedFiles the project has.
func projectConfigFiles(e *env) ([]string, error) {
	devrites, err := mdstore.DevritesDir(e.locator())
	if err != nil {
		return nil, err
	}
	var files []string
	for _, n := range trustedFiles {
		if p := filepath.Join(devrites, n); fileExists(p) {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return nil, mdstore.Errorf(mdstore.ErrMissing, "%s has no AFK, notify.yaml or rules.yaml to trust", devrites).
			Hint("name the file: devrites-engine trust FILE")
	}
	return files, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func trustList(e *env, store *trust.Store) error {
	entries, err := store.List()
	if err != nil {
		return err
	}
	type listed struct {
		trust.Entry
		Status string `json:"status"` // trusted, changed or missing
	}
	out := []listed{}
	var b strings.Builder
	if len(entries) == 0 {
		fmt.Fprintf(&b, "no trusted files (%s)\n", store.Path())
	}
	for _, en := range entries {
		status := "trusted"
		if v, err := store.Check(en.Path); errors.Is(err, fs.ErrNotExist) {
			status = "missing"
		} else if v != trust.Trusted {
			status = "changed"
		}
		out = append(out, listed{en, status})
		fmt.Fprintf(&b, "%-8s %s\n", status, en.Path)
	}
	e.print(map[string]any{"files": out, "store": store.Path()}, b.String())
	return nil
}

func trustRevoke(e *env, store *trust.Store, f string) error {
	en, err := store.Revoke(f)
	if errors.Is(err, trust.ErrNotTrusted) {
		return mdstore.Errorf(engine.ErrUnknownTrust, "%s is not trusted on this machine", f).Hint("list the trusted files: devrites-engine trust --list")
	}
	if err != nil {
		return err
	}
	e.print(map[string]any{"revoked": en}, "revoked "+en.Path+"\n")
	return nil
}

// offerTrustAll offers to trust, one by one, the workspace's config files
// that are not trusted here (after init), or says how.
func offerTrustAll(e *env, ws *mdstore.Workspace) error {
	eng, err := engine.Open(ws, e.now, e.c.Duration("lock-timeout"), "")
	if err != nil {
		return nil // init is done; the next command reports it
	}
	for _, u := range eng.Untrusted() {
		if _, err := offerTrust(e, u); err != nil {
			return err
		}
	}
	return nil
}

// offerTrust asks a person at a terminal whether to trust a config file
// that is not trusted here, showing it first; elsewhere it says how, in a
// warning. It reports whether the file is trusted now.
func offerTrust(e *env, u config.UntrustedFile) (bool, error) {
	path, why, command := u.Path, u.Why, u.Command
	if !e.terminal() || !e.person() || e.json {
		e.warn([]string{u.Warning()})
		return false, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(e.stdout, "%s is %s on this machine. It reads:\n\n%s\n", path, why, indent(string(b)))
	// The files its command runs are shown, and trusted, with it.
	type shown struct {
		path string
		b    []byte
	}
	var runs []shown // in the order shown
	for _, cf := range config.CommandFiles(path) {
		cb, err := os.ReadFile(cf)
		if err != nil {
			return false, err
		}
		runs = append(runs, shown{cf, cb})
		fmt.Fprintf(e.stdout, "Its notify command runs %s, which reads:\n\n%s\n", cf, indent(string(cb)))
	}
	fmt.Fprint(e.stdout, "Trust it (its notify command runs, its approvals apply)? [y/N] ")
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(e.stdout)
		return false, nil
	}
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		fmt.Fprintf(e.stdout, "not trusted; to trust it later: %s\n", command)
		return false, nil
	}
	store, err := trust.Open()
	if err != nil {
		return false, err
	}
	// What is trusted is what was shown.
	en, err := store.Add(path, b)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(e.stdout, "trusted %s (sha256 %s)\n", en.Path, en.SHA256[:12])
	for _, r := range runs {
		if en, err = store.Add(r.path, r.b); err != nil {
			return false, err
		}
		fmt.Fprintf(e.stdout, "trusted %s (sha256 %s)\n", en.Path, en.SHA256[:12])
	}
	return true, nil
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + l)
	}
	return b.String() + "\n"
}
