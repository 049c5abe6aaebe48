package app

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

var (
	walkSeed  = flag.Uint64("walk.seed", 0, "TestClonesRandomWalk: the seed (0: 1 in the suite, from the clock with -long)")
	walkSteps = flag.Int("walk.steps", 0, "TestClonesRandomWalk: steps (0: 120, or 1200 with -long)")
)

// TestClonesRandomWalk: three clones of one workspace raise, answer,
// reject, stop, resume and merge (git pull --no-rebase or --rebase) in a
// seeded random order, and after every merge the invariants of docs/git.md
// hold: the merge completes (no conflict: the walk makes no real
// disagreement, as everyone answers a question the same way); every
// question is there once; every final question has one decision, of its
// status, under an id the question has had; every re-scope owed is in
// next_action or rescope_pending; while a question is open the agent may
// not proceed; every stop made and not lifted by a clone that held it is
// kept, and no other (stops); doctor is clean. The seed is logged;
// -walk.seed replays it.
func TestClonesRandomWalk(t *testing.T) {
	// The suite walks one seed, so that it fails only on a change; the
	// long run a new one each time.
	seed := *walkSeed
	switch {
	case seed == 0 && *longFlag:
		seed = uint64(time.Now().UnixNano())
	case seed == 0:
		seed = 1
	}
	steps := *walkSteps
	if steps == 0 {
		steps = 120
		if *longFlag {
			steps = 1200
		}
	}
	t.Logf("seed %d, %d steps (replay: go test ./cmd/internal/app -run TestClonesRandomWalk -walk.seed %d)", seed, steps, seed)
	w := &walk{l: threeClones(t), ws: gitWS, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), owed: map[string]bool{},
		stops: map[string]*stops{}, clock: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	clones := []string{"a", "b", "c"}
	for i := range steps {
		c := clones[w.rnd.IntN(3)]
		op := w.rnd.IntN(10)
		w.step = fmt.Sprintf("step %d (%s)", i, c)
		switch {
		case op < 3:
			w.raise(c)
		case op < 6:
			w.resolveAwaited(c)
		case op == 6:
			w.stopOrResume(c)
		default:
			w.merge(c, w.rnd.IntN(2) == 0)
		}
		if t.Failed() {
			t.Fatalf("%s: seed %d", w.step, seed)
		}
	}
	for _, c := range clones { // everyone ends on one history
		w.merge(c, false)
	}
	t.Logf("%d questions, %d merges, %d answers to a queued question", w.raised, w.merges, w.queuedAnswers)
}

type walk struct {
	l             *gitLab
	ws            string   // the workspace walked, as gitWS: .devrites/work/<slug>/
	slug          string   // its slug, passed as --slug; "" for the active one
	env           []string // more environment for the engine (a decoy DEVRITES_WORKSPACE)
	rnd           *rand.Rand
	clock         time.Time
	step          string
	raised        int
	merges        int
	queuedAnswers int
	owed          map[string]bool // questions (by text) whose rejection owes a re-scope
	merged        string          // the versions of state.md the last merge merged
	rejectedEver  []string
	stops         map[string]*stops // by clone, and "origin"
}

// stops is what a history did to stops, each known by the time it was
// made: every stop made in it, and every stop lifted. A merge joins both;
// the stops the result holds are those made and not lifted.
type stops struct{ made, lifted []string }

// of is the stops of clone (or "origin").
func (w *walk) stopsOf(clone string) *stops {
	if w.stops[clone] == nil {
		w.stops[clone] = &stops{}
	}
	return w.stops[clone]
}

// held are the stops made and not lifted, in time order.
func (s *stops) held() []string {
	var out []string
	for _, at := range s.made {
		if !slices.Contains(s.lifted, at) {
			out = append(out, at)
		}
	}
	slices.Sort(out)
	return out
}

func (s *stops) join(o *stops) *stops {
	add := func(to, from []string) []string {
		for _, x := range from {
			if !slices.Contains(to, x) {
				to = append(to, x)
			}
		}
		return to
	}
	return &stops{made: add(slices.Clone(s.made), o.made), lifted: add(slices.Clone(s.lifted), o.lifted)}
}

func (w *walk) now() string {
	w.clock = w.clock.Add(time.Minute)
	return w.clock.Format(time.RFC3339)
}

// engine runs the engine in clone; exit codes 0, 3 (a pause) and 5 (a
// state that refuses, such as a raise while paused) are the walk's.
func (w *walk) engine(clone string, args ...string) (int, string) {
	w.l.t.Helper()
	saved := w.l.env
	w.l.env = append(append(append([]string(nil), w.l.env...), w.env...), "DEVRITES_NOW="+w.now())
	defer func() { w.l.env = saved }()
	code, out, errs := w.l.exec(clone, engineName, w.args(args...)...)
	w.l.t.Logf("%s: %s: exit %d: %s", w.step, strings.Join(args, " "), code, strings.TrimSpace(strings.SplitN(out+errs, "\n", 2)[0]))
	if code != 0 && code != 3 && code != 5 {
		w.l.t.Errorf("%s: %s: exit %d\n%s%s", w.step, strings.Join(args, " "), code, out, errs)
	}
	w.l.save(clone, strings.Join(args[:2], " "))
	return code, out
}

func (w *walk) raise(clone string) {
	w.raised++
	w.engine(clone, "question", "raise", "--gate", "blocking", "--question", fmt.Sprintf("%sW%d?", w.slug, w.raised), "--option", "yes", "--option", "no")
}

// args are the engine's arguments for the walk's workspace: --slug first
// when it walks one of several, as printed commands carry it.
func (w *walk) args(args ...string) []string {
	if w.slug == "" {
		return args
	}
	return append([]string{"--slug", w.slug}, args...)
}

// exec runs the engine in clone without a step of the walk's clock.
func (w *walk) exec(clone string, args ...string) (int, string, string) {
	saved := w.l.env
	w.l.env = append(append([]string(nil), w.l.env...), w.env...)
	defer func() { w.l.env = saved }()
	return w.l.exec(clone, engineName, w.args(args...)...)
}

// rejects: whether the walk rejects the question, decided by its text, so
// that two clones resolving one question resolve it alike.
func rejects(question string) bool {
	h := fnv.New32a()
	h.Write([]byte(question))
	return h.Sum32()%3 == 0
}

func (w *walk) resolveAwaited(clone string) {
	code, out, _ := w.exec(clone, "state", "show", "--json")
	var v engine.StateView
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		w.l.t.Errorf("%s: state show: exit %d\n%s", w.step, code, out)
		return
	}
	id := v.Awaiting["question_id"]
	// Now and then a person answers a question queued behind the pause.
	queued := strings.Split(v.Cursor["awaiting_next"], ",")
	if strings.TrimSpace(queued[0]) != "" && w.rnd.IntN(2) == 0 {
		id = strings.TrimSpace(queued[0])
	} else {
		queued = nil
	}
	b := mdstore.ParseQuestions([]byte(w.l.read(clone + "/" + w.ws + mdstore.QuestionsFile))).Find(id)
	if id == "" || b == nil || b.Value("status") != "open" {
		return
	}
	if queued != nil {
		w.queuedAnswers++
	}
	q := b.Value("question")
	if rejects(q) {
		w.engine(clone, "state", "resolve", "--reject", id, "not "+q)
		if !slices.Contains(w.rejectedEver, q) {
			w.owed[q], w.rejectedEver = true, append(w.rejectedEver, q)
		}
		return
	}
	w.engine(clone, "state", "resolve", id, "1")
}

func (w *walk) stopOrResume(clone string) {
	s := w.stopsOf(clone)
	if st, _ := mdstore.ParseState([]byte(w.l.read(clone + "/" + w.ws + mdstore.StateFile))).Get("status"); st == "blocked" {
		if code, _ := w.engine(clone, "state", "resume"); code == 0 {
			s.lifted = append(s.lifted, s.held()...)
		}
		return
	}
	// Every stop has the same reason: a stop made again after a lift is
	// told from the one lifted only by its identity.
	if code, _ := w.engine(clone, "state", "stop", "--status", "blocked", "--reason", "walk stop", "--resume", "/rite-build"); code == 0 {
		s.made = append(s.made, w.clock.Format(time.RFC3339))
	}
}

// merge brings clone and origin together, then checks clone.
func (w *walk) merge(clone string, rebase bool) {
	if w.pull(clone, rebase) {
		w.merged1(clone)
	}
}

// pull brings clone and origin together (git pull, then push); false when
// the merge did not complete.
func (w *walk) pull(clone string, rebase bool) bool {
	l := w.l
	l.t.Helper()
	args := []string{"pull", "-q", "--no-rebase", "--no-edit"}
	if rebase {
		args = []string{"pull", "-q", "--rebase"}
	}
	w.merges++
	w.l.t.Logf("%s: git %s", w.step, strings.Join(args, " "))
	// What was merged, for the message of a failed check.
	l.run(clone, "git", "fetch", "-q")
	base := strings.TrimSpace(l.run(clone, "git", "merge-base", "HEAD", "origin/main"))
	w.merged = ""
	for _, f := range []string{mdstore.StateFile, mdstore.DecisionsFile, mdstore.QuestionsFile} {
		for _, rev := range []string{base, "HEAD", "origin/main"} {
			_, out, _ := l.exec(clone, "git", "show", rev+":"+w.ws+f)
			w.merged += "--- " + f + " at " + rev + "\n" + out
		}
	}
	if code, out, errs := l.exec(clone, "git", args...); code != 0 {
		l.t.Errorf("%s: git %s: exit %d, a conflict where nothing disagrees\n%s%s\n%s", w.step, strings.Join(args, " "), code, out, errs, l.read(clone+"/"+w.ws+mdstore.StateFile))
		return false
	}
	l.run(clone, "git", "push", "-q", "origin", "HEAD:main")
	return true
}

// merged1 takes in what a completed merge of clone did to the stops, then
// checks clone.
func (w *walk) merged1(clone string) {
	w.stops[clone] = w.stopsOf(clone).join(w.stopsOf("origin"))
	w.stops["origin"] = w.stops[clone].join(&stops{}) // a copy
	w.check(clone)
}

// check tests the invariants of docs/git.md in clone.
func (w *walk) check(clone string) {
	l := w.l
	files := map[string]string{}
	for _, f := range []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile} {
		files[f] = l.read(clone + "/" + w.ws + f)
		for _, m := range []string{"<<<<<<<", ">>>>>>>"} {
			if strings.Contains(files[f], m) {
				l.t.Errorf("%s: %s has conflict markers", w.step, f)
			}
		}
	}
	blocks := mdstore.ParseQuestions([]byte(files[mdstore.QuestionsFile])).Blocks()
	byText := map[string][]*mdstore.Block{}
	open := 0
	for _, b := range blocks {
		byText[b.Value("question")] = append(byText[b.Value("question")], b)
		if b.Value("status") == "open" {
			open++
		}
	}
	ids := map[string]bool{}
	for q, bs := range byText {
		if len(bs) != 1 {
			l.t.Errorf("%s: %q is in questions.md %d times", w.step, q, len(bs))
		}
		if ids[bs[0].QID] {
			l.t.Errorf("%s: two blocks are %s", w.step, bs[0].QID)
		}
		ids[bs[0].QID] = true
	}
	decided := map[string][]mdstore.DecisionRecord{}
	for _, r := range mdstore.DecisionRecords([]byte(files[mdstore.DecisionsFile])) {
		decided[r.Question] = append(decided[r.Question], r)
	}
	for q, bs := range byText {
		b, recs := bs[0], decided[q]
		st := b.Value("status")
		switch {
		case st == "open" && len(recs) > 0:
			l.t.Errorf("%s: %s (%s) is open, and decisions.md records it", w.step, b.QID, q)
		case st != "open" && len(recs) != 1:
			l.t.Errorf("%s: %s (%s) is %s, and decisions.md records it %d times", w.step, b.QID, q, st, len(recs))
		case st != "open":
			id, status, _ := strings.Cut(recs[0].Title, " ")
			if status != st || !slices.Contains(chainIDs(b), id) {
				l.t.Errorf("%s: %s (%s) is %s, and decisions.md records %q", w.step, b.QID, q, st, recs[0].Title)
			}
		}
	}
	s := mdstore.ParseState([]byte(files[mdstore.StateFile]))
	defer func() {
		if l.t.Failed() {
			l.t.Logf("%s: the versions merged:\n%s\n--- the result:\n%s\n%s\n%s", w.step, w.merged, files[mdstore.StateFile], files[mdstore.DecisionsFile], files[mdstore.QuestionsFile])
		}
	}()
	// A re-scope is owed in rescope_pending or as the re-scope command (the
	// default rescope_command), not as any command that names the id.
	owedIn := cursor(s, "next_action") + " " + cursor(s, "rescope_pending")
	owed := splitIDs(cursor(s, "rescope_pending"))
	if ids, ok := strings.CutPrefix(cursor(s, "next_action"), "/rite-plan reslice --feedback "); ok {
		owed = append(owed, splitIDs(ids)...)
	}
	owes := func(id string) bool { return slices.Contains(owed, id) }
	for q := range w.owed {
		bs := byText[q]
		if len(bs) != 1 || bs[0].Value("status") != "rejected" {
			continue // the rejection has not reached this clone
		}
		if !slices.ContainsFunc(chainIDs(bs[0]), owes) {
			l.t.Errorf("%s: the re-scope owed for %s (%s) is gone: next_action and rescope_pending are %q", w.step, bs[0].QID, q, owedIn)
		}
	}
	// The Log holds one raise line per id, and one question is awaited:
	// the others queued, each once, never the awaited one again.
	raises := map[string]int{}
	for _, line := range strings.Split(files[mdstore.StateFile], "\n") {
		if _, rest, ok := strings.Cut(line, ": raised "); ok && strings.HasPrefix(strings.TrimSpace(line), "- ") {
			id, _, _ := strings.Cut(rest, " ")
			if raises[id]++; raises[id] == 2 {
				l.t.Errorf("%s: the Log names the raise of %s twice", w.step, id)
			}
		}
	}
	queued := splitIDs(cursor(s, "awaiting_next"))
	if aw := s.AwaitingQID(); aw != "" && slices.Contains(queued, aw) || len(slices.Compact(slices.Sorted(slices.Values(queued)))) != len(queued) {
		l.t.Errorf("%s: state.md awaits %q and queues %q", w.step, s.AwaitingQID(), queued)
	}
	held := w.stopsOf(clone).held()
	if st, at := cursor(s, "status"), cursor(s, "stopped_at"); (st == "blocked") != (len(held) > 0) || at != strings.Join(held, ", ") {
		l.t.Errorf("%s: status %q, stopped_at %q, want the stops made and not lifted: %q", w.step, st, at, held)
	}
	if code, out, _ := w.exec(clone, "state", "check"); open > 0 && code != 3 {
		l.t.Errorf("%s: %d questions open, and state check exits %d\n%s", w.step, open, code, out)
	}
	code, out, errs := w.exec(clone, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Findings) != 0 {
		l.t.Errorf("%s: doctor: exit %d, %v, findings %+v\n%s", w.step, code, err, rep.Findings, errs)
	}
}

// splitIDs is a comma-separated list of ids.
func splitIDs(s string) []string {
	var ids []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// chainIDs is every id a block has had.
func chainIDs(b *mdstore.Block) []string {
	return append(splitIDs(b.Value("renumbered_from")), b.QID)
}
