package gitdriver

import (
	"strings"
	"testing"
)

// TestRunProjectIDs: the driver of a feature's questions.md renumbers a
// question of theirs under an id another feature holds on ours' side, and
// leaves DevRites' own ids alone (each feature numbers its Q-NNN apart).
func TestRunProjectIDs(t *testing.T) {
	r := newRepo(t)
	r.install()
	block := func(id, q string) string {
		return "\n## " + id + "\nstatus: open\ngate: blocking\nquestion: " + q + "\nraised_at: 2026-11-29T10:00:00Z\n"
	}
	r.write(".devrites/work/a/questions.md", "# Questions\n"+block("Q-001", "A1?")+block("q-2026-11-29-001", "A2?"))
	r.write(".devrites/work/b/questions.md", "# Questions\n"+block("Q-001", "B1?")+block("Q-004", "B4?"))
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "base")
	r.git("checkout", "-q", "-b", "theirs")
	r.write(".devrites/work/a/questions.md", r.read(".devrites/work/a/questions.md")+block("Q-004", "Theirs DevRites?")+block("q-2026-11-29-002", "Theirs?"))
	r.git("commit", "-q", "-am", "theirs")
	r.git("checkout", "-q", "main")
	r.write(".devrites/work/a/questions.md", r.read(".devrites/work/a/questions.md")+block("Q-002", "Ours?"))
	r.write(".devrites/work/b/questions.md", r.read(".devrites/work/b/questions.md")+block("q-2026-11-29-002", "B's own?"))
	r.git("commit", "-q", "-am", "ours")
	if out, err := r.try("merge", "-q", "--no-edit", "theirs"); err != nil {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	got := r.read(".devrites/work/a/questions.md")
	for _, want := range []string{"## Q-004\n", "## q-2026-11-29-003\n", "question: Theirs?\nraised_at: 2026-11-29T10:00:00Z\nrenumbered_from: q-2026-11-29-002\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("a's questions.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "## q-2026-11-29-002") {
		t.Errorf("a keeps q-2026-11-29-002, b's question's id:\n%s", got)
	}
}
