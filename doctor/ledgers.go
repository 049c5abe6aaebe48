package doctor

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/recovery"
)

// Checks of the two ledgers beside the HITL files: the project's approval
// rules (.devrites/rules.yaml) and the workspace's recovery.md.

// Rules reports each line that makes rules.yaml fail (no approval rule
// then applies and nothing is auto-picked) as an error, keys it ignores as
// warnings, and temporary files an interrupted rules edit left.
func (c *Checker) Rules(r *config.Rules) {
	ws := c.WS
	if ws.Devrites == "" {
		return
	}
	file := c.DevritesFile(config.RulesFile)
	for _, p := range r.Ignored {
		c.Add(Finding{Severity: SevWarning, Kind: "rules", File: file, Line: p.Line, Problem: p.Text + " (ignored)",
			Mend: "delete the key, or correct its name (id, breakpoint, tag, action, created_by, created_at, note)"})
	}
	for _, p := range r.Problems {
		c.Add(Finding{Severity: SevError, Kind: "rules", File: file, Line: p.Line,
			Problem: p.Text + "; no approval rule applies and nothing is auto-picked until it is fixed",
			Mend:    "fix the rule (each is id, breakpoint or tag, action: always-approve or never-auto), or restore the file from version control"})
	}
	for _, n := range tempsOf(ws.Devrites, config.RulesFile) {
		c.Add(Finding{Severity: SevWarning, Kind: "temp-file", File: c.DevritesFile(n),
			Problem: "temporary file left by an interrupted rules edit",
			Mend:    "when no rules command is running, remove it: rm " + filepath.Join(ws.Devrites, n)})
	}
}

// Recovery reports recovery.md when it is not a regular file or has
// rows that do not read (errors: recovery commands refuse to write it). The
// temporary files an interrupted write of it left are Temps'.
func (c *Checker) Recovery() {
	const file = recovery.File
	path := c.WS.Path(file)
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		c.Add(Finding{Severity: SevError, Kind: "recovery", File: file, Problem: err.Error(), Mend: "check the file's permissions"})
	case !fi.Mode().IsRegular():
		c.Add(Finding{Severity: SevError, Kind: "not-regular", File: file,
			Problem: "not a regular file (" + mdstore.FileType(fi.Mode()) + "); the engine refuses to read or replace it",
			Mend:    "replace it with a plain file holding the content, or delete it to start an empty ledger"})
	default:
		b, err := os.ReadFile(path)
		if err != nil {
			c.Add(Finding{Severity: SevError, Kind: "recovery", File: file, Problem: err.Error(), Mend: "check the file's permissions"})
			break
		}
		_, probs := recovery.Parse(b)
		for _, p := range probs {
			c.Add(Finding{Severity: SevError, Kind: "recovery", File: file, Line: p.Line, Problem: p.Text,
				Mend: "mend the row by hand (| fingerprint | level | attempts | total | state | updated_at | note |), or delete it; until then recovery commands refuse to write"})
		}
	}
}

// Tasks reports conflict markers a merge left in tasks.md, which the
// engine only reads: a slice's gate or SLA read from between them could be
// either side's.
func (c *Checker) Tasks() {
	if b, err := c.WS.ReadFile(mdstore.TasksFile); err == nil {
		c.Markers(mdstore.TasksFile, b)
	}
}

// tempsOf lists the temporary files an atomic write of name leaves in dir
// when it is killed before its rename: "." + name + digits.
func tempsOf(dir, name string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, en := range ents {
		if rest, ok := strings.CutPrefix(en.Name(), "."+name); ok && rest != "" && en.Type().IsRegular() {
			if _, err := strconv.ParseUint(rest, 10, 64); err == nil {
				out = append(out, en.Name())
			}
		}
	}
	return out
}
