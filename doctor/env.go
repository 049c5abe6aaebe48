package doctor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
)

// Checks around the files: temporary files, the AFK file, the notify command.

// Temps reports temporary files that atomic writes leave when killed
// before their rename. Under the lock no write is in flight, so every such
// file is stale.
func (c *Checker) Temps(locked bool) {
	names, err := TempFiles(c.WS.Dir)
	if err != nil {
		c.Add(Finding{Severity: SevError, Kind: "temp-file", File: ".", Problem: err.Error(), Mend: "check the directory's permissions"})
		return
	}
	for _, n := range names {
		f := Finding{Severity: SevWarning, Kind: "temp-file", File: n,
			Problem: "temporary file left by an interrupted write", Mend: "run: devrites-engine doctor --fix (removes it)", Fixable: true}
		if !locked {
			f.Mend, f.Fixable = "it may belong to the process holding the lock; run doctor --fix when the lock is free", false
		}
		c.Add(f)
	}
}

// TempFiles lists the temporary files atomic writes left in dir.
func TempFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, en := range ents {
		if en.Type().IsRegular() && mdstore.IsTemp(en.Name()) {
			out = append(out, en.Name())
		}
	}
	return out, nil
}

// warningAt is the "path:line:" that LoadAFK's messages start with.
var warningAt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^:([0-9]+):\s*`) })

// splitWarning splits "path:12: message" into 12 and "message".
func splitWarning(w, path string) (int, string) {
	rest := strings.TrimPrefix(w, path)
	if m := warningAt().FindStringSubmatch(rest); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, rest[len(m[0]):]
	}
	return 0, strings.TrimSpace(strings.TrimPrefix(rest, ":"))
}

// Config reports each line that makes an AFK file fail (AFK then fails
// closed) as an error, its other warnings, and a notify command whose program
// is not found.
func (c *Checker) Config(a, h config.AFK, untrusted []config.UntrustedFile) {
	if a.On {
		c.configFindings(a, "afk", "fix the YAML (see docs/afk-and-notify.md); until then every question pauses")
	}
	if h.On && h.Path != a.Path {
		c.configFindings(h, "notify", "fix the YAML; until then the notify hook does not fire")
	}
	for _, u := range untrusted {
		c.Add(Finding{Severity: SevWarning, Kind: "trust", File: c.DevritesFile(filepath.Base(u.Path)),
			Problem: u.Why + " on this machine: " + u.Effect, Mend: config.TrustHint})
	}
	if !h.On || h.Broken || h.Notify == "" {
		return
	}
	prog, ok := notifyProgram(h.Notify)
	if !ok {
		return
	}
	if missing := c.programMissing(prog); missing != "" {
		c.Add(Finding{Severity: SevWarning, Kind: "notify", File: c.DevritesFile(filepath.Base(h.Path)),
			Problem: fmt.Sprintf("notify command %q: %s: nobody is told about questions", h.Notify, missing),
			Mend:    "install it, or correct the notify line (it runs as sh -c from " + c.WS.Project + ")"})
	}
}

// configFindings reports the warnings of the AFK file or notify.yaml: the
// ones that make it fail as errors.
func (c *Checker) configFindings(a config.AFK, kind, broken string) {
	file := c.DevritesFile(filepath.Base(a.Path))
	for i, w := range a.Warnings {
		f := Finding{Severity: SevWarning, Kind: kind, File: file, Mend: "fix or remove the key"}
		f.Line, f.Problem = splitWarning(w, a.Path)
		if a.Failed(i) {
			f.Severity, f.Mend = SevError, broken
		}
		c.Add(f)
	}
}

// shellWords are the builtins and keywords a notify command may start with.
var shellWords = map[string]bool{".": true, ":": true, "cd": true, "echo": true, "eval": true, "exec": true, "exit": true,
	"export": true, "printf": true, "read": true, "set": true, "test": true, "true": true, "false": true, "[": true,
	"if": true, "for": true, "while": true, "until": true, "case": true, "{": true, "(": true, "!": true}

// notifyProgram returns the program a shell command runs first, when it is
// simple enough to tell: leading VAR=value assignments are skipped, and a
// command that starts with quoting or a subshell is not judged.
func notifyProgram(cmd string) (string, bool) {
	for _, w := range strings.Fields(cmd) {
		if strings.ContainsAny(w, "'\"`$\\(){};|&<>*?") {
			return "", false
		}
		if eq := strings.IndexByte(w, '='); eq > 0 && !strings.Contains(w[:eq], "/") {
			continue
		}
		if shellWords[w] {
			return "", false
		}
		return w, true
	}
	return "", false
}

// programMissing says why prog cannot run, or "" when it can.
func (c *Checker) programMissing(prog string) string {
	if !strings.Contains(prog, "/") {
		if _, err := exec.LookPath(prog); err != nil {
			return prog + " is not found in PATH"
		}
		return ""
	}
	p := prog
	if strings.HasPrefix(p, "~/") {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, p[2:])
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(c.WS.Project, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return prog + " does not exist"
	case fi.IsDir():
		return prog + " is a directory"
	case fi.Mode().Perm()&0o111 == 0:
		return prog + " is not executable (chmod +x " + prog + ")"
	}
	return ""
}

// Templates reports engine.yaml: a file that does not read (err, from
// loading it), templates not used for their shape, keys it ignores.
func (c *Checker) Templates(t config.Templates, err error) {
	path := filepath.Join(c.WS.Devrites, "engine.yaml")
	file := c.DevritesFile("engine.yaml")
	if err != nil {
		c.Add(Finding{Severity: SevError, Kind: "config", File: file, Problem: strings.TrimPrefix(err.Error(), path+": "),
			Mend: "fix the YAML, or delete the file to use the default next_action texts"})
	}
	for _, w := range t.Invalid {
		c.Add(Finding{Severity: SevError, Kind: "config", File: file, Problem: strings.TrimPrefix(w, path+": "),
			Mend: "write a /rite-… or devrites-engine command with the placeholders {qid}, {phase}, {slice} and \"<answer>\", or delete the key"})
	}
	for _, w := range t.Warnings {
		line, text := splitWarning(w, path)
		c.Add(Finding{Severity: SevWarning, Kind: "config", File: file, Line: line, Problem: text,
			Mend: "delete the key, or correct its name"})
	}
}
