package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotifyTestOffersTrust: at a terminal, notify test shows an untrusted
// notify.yaml and asks; yes trusts what was shown and fires the hook.
func TestNotifyTestOffersTrust(t *testing.T) {
	x := newTTY(t)
	file := filepath.Join(x.dir, ".devrites", "notify.yaml")
	if err := os.WriteFile(file, []byte("notify: touch FIRED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x.start("notify", "test")
	x.waitFor("It reads:", 1)
	x.waitFor("notify: touch FIRED", 1)
	x.waitFor("Trust it (its notify command runs, its approvals apply)? [y/N]", 1)
	if _, err := os.Stat(filepath.Join(x.dir, "FIRED")); err == nil {
		t.Fatal("the hook ran before the person said yes")
	}
	x.keys("y", "Enter")
	x.waitFor("ok: exit 0", 1)
	x.waitFor("EXIT=0", 1)
	if _, err := os.Stat(filepath.Join(x.dir, "FIRED")); err != nil {
		t.Fatalf("the hook did not run once trusted: %v", err)
	}
}

// TestInitOffersTrust: init in a clone whose AFK file is not trusted here
// shows it and asks; no leaves it untrusted and says how to trust it later.
func TestInitOffersTrust(t *testing.T) {
	x := newTTY(t)
	if err := os.WriteFile(filepath.Join(x.dir, ".devrites", "AFK"), []byte("notify: touch FIRED\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x.start("init", "second")
	x.waitFor("[y/N]", 1)
	x.keys("n", "Enter")
	x.waitFor("not trusted; to trust it later: devrites-engine trust "+filepath.Join(x.dir, ".devrites", "AFK"), 1)
	x.waitFor("EXIT=0", 1)
	if out := x.run("trust", "--list"); strings.Contains(out, filepath.Join(x.dir, ".devrites", "AFK")) {
		t.Fatalf("got %q, want the AFK file untrusted", out)
	}
}
