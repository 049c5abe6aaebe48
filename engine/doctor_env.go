package engine

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
	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
)

// Checks around the files: temporary files, the AFK file, the notify command.

// checkTemps reports temporary files that atomic writes leave when killed
// before their rename. Under the lock no write is in flight, so every such
// file is stale.
func (d *checkup) checkTemps(locked bool) {
	names, err := d.temps()
	if err != nil {
		d.Add(doctor.Finding{Severity: doctor.SevError, Kind: "temp-file", File: ".", Problem: err.Error(), Mend: "check the directory's permissions"})
		return
	}
	for _, n := range names {
		f := doctor.Finding{Severity: doctor.SevWarning, Kind: "temp-file", File: n,
			Problem: "temporary file left by an interrupted write", Mend: "run: devrites-engine doctor --fix (removes it)", Fixable: true}
		if !locked {
			f.Mend, f.Fixable = "it may belong to the process holding the lock; run doctor --fix when the lock is free", false
		}
		d.Add(f)
	}
	d.checkInitTemps(locked)
}

// checkInitTemps reports the directories that an init of this slug was
// building when it was killed. An init that is still running has its own
// (the workspace does not exist for it yet) and loses the rename to this
// workspace, so removing one is safe.
func (d *checkup) checkInitTemps(locked bool) {
	dirs, err := initTemps(d.e.WS)
	if err != nil {
		return // the directory above the workspace is not doctor's to judge
	}
	for _, dir := range dirs {
		f := doctor.Finding{Severity: doctor.SevWarning, Kind: "init-temp", File: d.beside(dir),
			Problem: "directory left by an init that did not finish", Mend: "run: devrites-engine doctor --fix (removes it)", Fixable: true}
		if !locked {
			f.Mend, f.Fixable = "run doctor --fix when the lock is free, or remove it: rm -r "+dir, false
		}
		d.Add(f)
	}
}

// beside names a path next to the feature directory as the project sees it
// (.devrites/work/…), else relative to the feature directory.
func (d *checkup) beside(p string) string {
	ws := d.e.WS
	base := ws.Dir
	if ws.Devrites != "" {
		base = ws.Project
	}
	if rel, err := filepath.Rel(base, p); err == nil {
		return rel
	}
	return p
}

func (d *checkup) temps() ([]string, error) {
	ents, err := os.ReadDir(d.e.WS.Dir)
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

// checkAFK reports each line that makes an AFK file fail (AFK then fails
// closed) as an error, its other warnings, and a notify command whose program
// is not found.
func (d *checkup) checkAFK() {
	a, h := d.e.AFK, d.e.Hook
	if a.On {
		d.configFindings(a, "afk", "fix the YAML (see docs/afk-and-notify.md); until then every question pauses")
	}
	if h.On && h.Path != a.Path {
		d.configFindings(h, "notify", "fix the YAML; until then the notify hook does not fire")
	}
	for _, u := range d.e.Untrusted() {
		d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "trust", File: d.devritesName(filepath.Base(u.Path)),
			Problem: u.Why + " on this machine: " + u.Effect, Mend: config.TrustHint})
	}
	if !h.On || h.Broken || h.Notify == "" {
		return
	}
	prog, ok := notifyProgram(h.Notify)
	if !ok {
		return
	}
	if missing := d.programMissing(prog); missing != "" {
		d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "notify", File: d.devritesName(filepath.Base(h.Path)),
			Problem: fmt.Sprintf("notify command %q: %s: nobody is told about questions", h.Notify, missing),
			Mend:    "install it, or correct the notify line (it runs as sh -c from " + d.e.WS.Project + ")"})
	}
}

// configFindings reports the warnings of the AFK file or notify.yaml: the
// ones that make it fail as errors.
func (d *checkup) configFindings(a config.AFK, kind, broken string) {
	file := d.devritesName(filepath.Base(a.Path))
	for i, w := range a.Warnings {
		f := doctor.Finding{Severity: doctor.SevWarning, Kind: kind, File: file, Mend: "fix or remove the key"}
		f.Line, f.Problem = splitWarning(w, a.Path)
		if a.Failed(i) {
			f.Severity, f.Mend = doctor.SevError, broken
		}
		d.Add(f)
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
func (d *checkup) programMissing(prog string) string {
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
		p = filepath.Join(d.e.WS.Project, p)
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
