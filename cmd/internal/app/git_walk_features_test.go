package app

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var walkFeatures = flag.Bool("walk.features", false, "TestClonesRandomWalkFeatures: run it (it runs with -long too)")

// TestClonesRandomWalkFeatures is TestClonesRandomWalk with two features,
// pay and feat-b, on the three clones (docs/git.md): each step acts on one
// feature of one clone, through commands that carry --slug, in a shell
// whose DEVRITES_WORKSPACE names the other feature. After every merge,
// every id names one question in the whole project — when git merged
// without the driver and two features hold one id, the refusal's hint is
// run as printed (doctor --fix in the feature that raised it later) and
// counted — and the identity invariants (docs/git.md) hold in each feature. Opt-in
// (-walk.features, or -long); -walk.seed and -walk.steps as for the walk.
func TestClonesRandomWalkFeatures(t *testing.T) {
	if !*walkFeatures && !*longFlag {
		t.Skip("opt-in: -walk.features (or -long)")
	}
	seed := *walkSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	steps := *walkSteps
	if steps == 0 {
		steps = 200
	}
	t.Logf("seed %d, %d steps (replay: go test ./cmd/internal/app -run TestClonesRandomWalkFeatures -walk.features -walk.seed %d -walk.steps %d)", seed, steps, seed, steps)
	l := twoFeatures(t)
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	start := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	walks := []*walk{
		{l: l, ws: ".devrites/work/pay/", slug: "pay", env: []string{"DEVRITES_WORKSPACE=.devrites/work/feat-b"}},
		{l: l, ws: ".devrites/work/feat-b/", slug: "feat-b", env: []string{"DEVRITES_WORKSPACE=.devrites/work/pay"}},
	}
	for _, w := range walks {
		w.rnd, w.clock, w.owed, w.stops = rnd, start, map[string]bool{}, map[string]*stops{}
	}
	clones := []string{"a", "b", "c"}
	merges, repaired := 0, 0
	merge := func(c string, rebase bool) {
		merges++
		if !walks[0].pull(c, rebase) {
			return
		}
		repaired += repairShared(t, l, c)
		for _, w := range walks {
			w.step = walks[0].step
			w.merged1(c)
		}
	}
	for i := range steps {
		c := clones[rnd.IntN(3)]
		w := walks[rnd.IntN(2)]
		op := rnd.IntN(10)
		step := fmt.Sprintf("step %d (%s, %s)", i, c, w.slug)
		for _, x := range walks {
			x.step = step
		}
		switch {
		case op < 3:
			w.raise(c)
		case op < 6:
			w.resolveAwaited(c)
		case op == 6:
			w.stopOrResume(c)
		default:
			merge(c, rnd.IntN(2) == 0)
		}
		for _, x := range walks { // one clock for the project
			if x.clock.After(w.clock) {
				w.clock = x.clock
			}
		}
		for _, x := range walks {
			x.clock = w.clock
		}
		if t.Failed() {
			t.Fatalf("%s: seed %d", step, seed)
		}
	}
	for _, c := range clones {
		merge(c, false)
	}
	t.Logf("%d steps, %d questions, %d merges (%d needed doctor --fix for an id two features held), zero violations",
		steps, walks[0].raised+walks[1].raised, merges, repaired)
}

// repairShared finds ids two features of clone hold after a merge and
// runs, as printed, the hint of the refusal that names one of them; it
// commits the repair and returns how many ids it repaired.
func repairShared(t *testing.T, l *gitLab, clone string) int {
	t.Helper()
	n := 0
	for range 10 {
		_, dups := l.projectIDs(clone)
		if len(dups) == 0 {
			return n
		}
		code, _, errs := l.exec(clone, engineName, "questions", "show", dups[0])
		const hint = "hint: give the later one its own id: "
		i := strings.Index(errs, hint)
		if code != exitMalformed || i < 0 {
			t.Fatalf("%s: %s is a question of two features, and questions show exits %d:\n%s", clone, dups[0], code, errs)
		}
		line := errs[i+len(hint):]
		line = line[:strings.IndexByte(line, '\n')]
		l.run(clone, "sh", "-c", line)
		l.save(clone, "doctor --fix")
		l.run(clone, "git", "push", "-q", "origin", "HEAD:main")
		n++
	}
	t.Fatalf("%s: ids still held by two features after 10 repairs", clone)
	return n
}
