package checkup

import (
	"path/filepath"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
)

// checkInitTemps reports the directories that an init of this slug was
// building when it was killed. An init that is still running has its own
// (the workspace does not exist for it yet) and loses the rename to this
// workspace, so removing one is safe.
func (d *checkup) checkInitTemps(locked bool) {
	dirs, err := mdstore.InitTemps(d.e.WS)
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
