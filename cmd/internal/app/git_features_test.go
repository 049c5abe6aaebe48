package app

import (
	"strings"
	"testing"
)

// Several features on several clones (SPEC §32): per-clone state stays
// per clone.

// TestClonesActiveIsPerClone: three clones each choose their own active
// feature (two features, pay and feat-b) and merge both ways, with pull
// --no-rebase and --rebase: .devrites/ACTIVE never conflicts and each
// clone keeps its own choice when both sides changed it.
func TestClonesActiveIsPerClone(t *testing.T) {
	l := threeClones(t)
	l.run("a", engineName, "init", "feat-b")
	l.sync("a")
	for _, c := range []string{"b", "c"} {
		l.run(c, "git", "pull", "-q", "--no-rebase")
	}
	// Base: feat-b. b goes back to pay, c to a third feature; a to pay too
	// and back, so that every side has its own commit of ACTIVE.
	l.write("b/.devrites/ACTIVE", "pay\n")
	l.save("b", "b works on pay")
	l.run("c", engineName, "init", "feat-c")
	l.save("c", "c works on feat-c")
	l.write("a/.devrites/ACTIVE", "pay\n")
	l.save("a", "a works on pay")
	l.write("a/.devrites/ACTIVE", "feat-b\n")
	l.save("a", "a back on feat-b")
	l.run("a", "git", "push", "-q", "origin", "main")
	for _, step := range []struct{ clone, mode, want string }{
		{"b", "--no-rebase", "pay"}, {"c", "--rebase", "feat-c"},
	} {
		code, out, errs := l.exec(step.clone, "git", "pull", "-q", step.mode, "--no-edit")
		if code != 0 {
			t.Fatalf("%s: git pull %s: exit %d\n%s%s", step.clone, step.mode, code, out, errs)
		}
		if got := strings.TrimSpace(l.read(step.clone + "/.devrites/ACTIVE")); got != step.want {
			t.Errorf("%s after pull %s: ACTIVE = %q, want %q (its own)", step.clone, step.mode, got, step.want)
		}
		l.run(step.clone, "git", "push", "-q", "origin", "HEAD:main")
		// A command without --slug acts on the clone's own feature.
		if out := l.run(step.clone, engineName, "state", "show"); !strings.Contains(out, "("+step.want+",") {
			t.Errorf("%s: state show acts on another feature:\n%s", step.clone, out)
		}
	}
	// a's choice is unchanged since the base, b's merge brought pay and c
	// feat-c: a pull takes the other side's ACTIVE as git takes any file
	// only one side changed (docs/git.md), and still never conflicts.
	code, out, errs := l.exec("a", "git", "pull", "-q", "--no-rebase", "--no-edit")
	if code != 0 {
		t.Fatalf("a: git pull: exit %d\n%s%s", code, out, errs)
	}
	if strings.Contains(l.read("a/.devrites/ACTIVE"), "<<<<<<<") {
		t.Errorf("a: ACTIVE conflicted:\n%s", l.read("a/.devrites/ACTIVE"))
	}
}
