package app

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// The classes of merge that lost pauses, stops and re-scopes (docs/git.md),
// each replayed on three real clones a, b and c of one origin. "pull" is
// git pull --no-rebase.

// threeClones is a lab with a bare origin and clones a, b and c of the
// workspace pay, each with the driver installed.
func threeClones(t *testing.T) *gitLab {
	t.Helper()
	l := clonedWorkspace(t, func(*gitLab) {})
	l.run("", "git", "clone", "-q", "origin.git", "c")
	l.run("c", engineName, "git", "install")
	return l
}

// at runs the engine in clone at the time now (DEVRITES_NOW), wanting exit
// 0 or 3 (a pause).
func (l *gitLab) at(clone, now string, args ...string) string {
	l.t.Helper()
	saved := l.env
	l.env = append(append([]string(nil), l.env...), "DEVRITES_NOW="+now)
	defer func() { l.env = saved }()
	return l.run(clone, engineName, args...)
}

// raise raises a blocking question in clone at now.
func (l *gitLab) raise(clone, now, question string) {
	l.t.Helper()
	l.at(clone, now, "question", "raise", "--gate", "blocking", "--question", question, "--option", "yes", "--option", "no")
}

// save commits everything in clone.
func (l *gitLab) save(clone, msg string) {
	l.t.Helper()
	l.run(clone, "git", "add", "-A")
	if code, _, _ := l.exec(clone, "git", "diff", "--cached", "--quiet"); code != 0 {
		l.run(clone, "git", "commit", "-q", "-m", msg)
	}
}

// sync commits, pulls (merging, without conflict) and pushes.
func (l *gitLab) sync(clone string) {
	l.t.Helper()
	l.save(clone, "work")
	l.run(clone, "git", "pull", "-q", "--no-rebase", "--no-edit")
	l.run(clone, "git", "push", "-q", "origin", "main")
}

// stateOf is clone's state.md, parsed.
func (l *gitLab) stateOf(clone string) *mdstore.State {
	return mdstore.ParseState([]byte(l.read(clone + "/" + gitWS + mdstore.StateFile)))
}

// qidOf is the id of the question whose text is question in clone.
func (l *gitLab) qidOf(clone, question string) string {
	l.t.Helper()
	for _, b := range mdstore.ParseQuestions([]byte(l.read(clone + "/" + gitWS + mdstore.QuestionsFile))).Blocks() {
		if b.Value("question") == question {
			return b.QID
		}
	}
	l.t.Fatalf("%s: no question %q:\n%s", clone, question, l.read(clone+"/"+gitWS+mdstore.QuestionsFile))
	return ""
}

// doctorClean wants doctor to find nothing in clone.
func (l *gitLab) doctorClean(clone string) {
	l.t.Helper()
	code, out, errs := l.exec(clone, engineName, "doctor", "--json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || len(rep.Findings) != 0 {
		l.t.Errorf("%s: doctor: exit %d, %v, findings %+v, want exit 0 and none\n%s", clone, code, err, rep.Findings, errs)
	}
}

func cursor(s *mdstore.State, k string) string { v, _ := s.Get(k); return v }

// checkExits wants state check in clone to exit code (0: the agent may
// proceed, 3: it may not), and returns what it printed.
func (l *gitLab) checkExits(clone string, code int) string {
	l.t.Helper()
	got, out, errs := l.exec(clone, engineName, "state", "check")
	if got != code {
		l.t.Errorf("%s: state check: exit %d, want %d\n%s%s\n%s", clone, got, code, out, errs, l.read(clone+"/"+gitWS+mdstore.StateFile))
	}
	return out
}

// Class 1: a stop on one side and a pause on the other give a stopped
// workspace that still awaits, with the other pause queued; answered in
// turn, each pause holds the agent until its question is answered.
func TestClonesStopKeepsPause(t *testing.T) {
	l := threeClones(t)
	l.raise("c", "2026-11-29T10:00:00Z", "QC?")
	l.sync("c")
	l.raise("a", "2026-11-29T10:05:00Z", "QA?")
	l.at("a", "2026-11-29T10:06:00Z", "state", "stop", "--status", "blocked", "--reason", "disk full", "--resume", "/rite-doctor")
	l.sync("a")
	qc, qa := l.qidOf("a", "QC?"), l.qidOf("a", "QA?")
	s := l.stateOf("a")
	if got := [3]string{cursor(s, "status"), s.AwaitingQID(), cursor(s, "awaiting_next")}; got != [3]string{"blocked", qc, qa} {
		t.Fatalf("after the pull: status, awaited, awaiting_next = %q, want blocked, %s, %s\n%s", got, qc, qa, l.read("a/"+gitWS+"state.md"))
	}
	l.doctorClean("a")
	// Lifting the stop returns to the pause; answering moves it to the next.
	l.at("a", "2026-11-29T10:10:00Z", "state", "resume")
	if s := l.stateOf("a"); cursor(s, "status") != "awaiting_human" || s.AwaitingQID() != qc {
		t.Fatalf("after resume: status %q awaiting %q, want awaiting_human on %s", cursor(s, "status"), s.AwaitingQID(), qc)
	}
	l.at("a", "2026-11-29T10:11:00Z", "state", "resolve", qc, "1")
	if s := l.stateOf("a"); cursor(s, "status") != "awaiting_human" || s.AwaitingQID() != qa || cursor(s, "awaiting_next") != "" {
		t.Fatalf("after answering %s: status %q awaiting %q next %q, want awaiting_human on %s\n%s", qc, cursor(s, "status"), s.AwaitingQID(), cursor(s, "awaiting_next"), qa, l.read("a/"+gitWS+"state.md"))
	}
	l.checkExits("a", 3) // qa is open
	l.at("a", "2026-11-29T10:12:00Z", "state", "resolve", qa, "2")
	l.checkExits("a", 0)
	l.doctorClean("a")
}

// Class 1 too: a stop a person lifted on one clone stays lifted when the
// other clone, still stopped, answered the question the pause held.
func TestClonesLiftedStopStaysLifted(t *testing.T) {
	l := threeClones(t)
	l.raise("a", "2026-11-29T10:00:00Z", "Ship it?")
	l.at("a", "2026-11-29T10:01:00Z", "state", "stop", "--status", "blocked", "--reason", "disk full", "--resume", "/rite-doctor")
	l.sync("a")
	l.sync("b")
	l.at("b", "2026-11-29T10:05:00Z", "state", "resume")
	l.sync("b")
	id := l.qidOf("a", "Ship it?")
	l.at("a", "2026-11-29T10:06:00Z", "state", "resolve", id, "1")
	l.sync("a")
	if s := l.stateOf("a"); cursor(s, "status") != "running" || cursor(s, "stop_reason") != "" || s.AwaitingQID() != "" {
		t.Errorf("after the pull: status %q, stop_reason %q, awaiting %q, want running, no stop, nothing awaited\n%s", cursor(s, "status"), cursor(s, "stop_reason"), s.AwaitingQID(), l.read("a/"+gitWS+"state.md"))
	}
	l.checkExits("a", 0)
	l.doctorClean("a")
}

// A stop made again with the same reason after a lift is a new stop: a
// clone that lifted the old one does not lift it. a stops; b and c take
// the stop; b lifts it; a lifts it and stops again for the same reason,
// then pulls b's lift; c lifts the old stop and pulls a's new one. Both
// stay stopped, and lifting the stop lifts it.
func TestClonesStopMadeAgainStays(t *testing.T) {
	l := threeClones(t)
	stop := func(clone, now string) {
		l.at(clone, now, "state", "stop", "--status", "blocked", "--reason", "disk full", "--resume", "/rite-doctor")
	}
	stop("a", "2026-11-29T10:00:00Z")
	l.sync("a")
	l.sync("b")
	l.sync("c")
	l.at("b", "2026-11-29T10:05:00Z", "state", "resume")
	l.sync("b")
	l.at("a", "2026-11-29T10:06:00Z", "state", "resume")
	stop("a", "2026-11-29T10:07:00Z")
	l.at("c", "2026-11-29T10:08:00Z", "state", "resume")
	l.sync("a") // ours made the stop again, theirs lifted the old one
	l.sync("c") // ours lifted the old stop, theirs made it again
	for _, clone := range []string{"a", "c"} {
		if s := l.stateOf(clone); cursor(s, "status") != "blocked" || cursor(s, "stop_reason") != "disk full" {
			t.Errorf("%s after the pull: status %q, stop_reason %q, want a's new stop\n%s", clone, cursor(s, "status"), cursor(s, "stop_reason"), l.read(clone+"/"+gitWS+mdstore.StateFile))
		}
		l.checkExits(clone, 3)
		l.doctorClean(clone)
	}
	l.at("c", "2026-11-29T10:10:00Z", "state", "resume")
	if s := l.stateOf("c"); cursor(s, "status") != "running" || cursor(s, "stopped_at") != "" {
		t.Errorf("after resume: status %q, stopped_at %q, want running and no stop", cursor(s, "status"), cursor(s, "stopped_at"))
	}
}

// Two clones each hold a different pause with a third question queued
// behind it, and each answers the question the other holds: the merge
// pauses on the queued question, which neither side's Awaiting human
// section held. Every read describes the pause as a pause does, and the
// next write writes it so.
func TestClonesPauseQueuedOnBothSides(t *testing.T) {
	l := threeClones(t)
	l.raise("a", "2026-11-29T10:00:00Z", "Q1?")
	l.raise("b", "2026-11-29T10:01:00Z", "Q2?")
	l.raise("c", "2026-11-29T10:02:00Z", "QX?")
	for _, c := range []string{"a", "b", "c", "a", "b"} {
		l.sync(c) // everyone: Q1 held, Q2 and QX queued
	}
	q1, q2, qx := l.qidOf("b", "Q1?"), l.qidOf("b", "Q2?"), l.qidOf("b", "QX?")
	l.at("b", "2026-11-29T10:05:00Z", "state", "resolve", q1, "1") // b holds Q2 now
	l.at("a", "2026-11-29T10:06:00Z", "state", "resolve", q2, "1") // a still holds Q1
	l.sync("b")
	l.sync("a")
	if out := l.checkExits("a", 3); !strings.Contains(out, "awaiting a human on "+qx) {
		t.Errorf("a after the pull: state check\n%s\nwant it awaiting %s", out, qx)
	}
	_, out, _ := l.exec("a", engineName, "state", "show", "--json")
	var v engine.StateView
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Awaiting["question_id"] != qx || v.Awaiting["question"] != "QX?" || v.Awaiting["gate"] != "blocking" {
		t.Errorf("a: state show: %v, awaiting %v, want %s, QX?, blocking", err, v.Awaiting, qx)
	}
	l.doctorClean("a")
	l.answered("a", "2026-11-29T10:07:00Z", "N?")
	if s := l.stateOf("a"); s.AwaitingQID() != qx || cursor(s, "awaiting_next") != "" {
		t.Errorf("a: awaiting %q, next %q, want %s alone", s.AwaitingQID(), cursor(s, "awaiting_next"), qx)
	} else if q, _ := s.GetAwaiting("question"); q != "QX?" {
		t.Errorf("a: the Awaiting human section after a write:\n%s\nwant it to ask QX?", l.read("a/"+gitWS+mdstore.StateFile))
	}
	l.doctorClean("a")
}

// Class 4: a re-scope one clone owes (a rejection) survives the other
// clone's pause winning the merge.
func TestClonesRescopeSurvivesPause(t *testing.T) {
	l := threeClones(t)
	l.raise("a", "2026-11-29T10:00:00Z", "Plan ok?")
	l.sync("a")
	l.sync("b")
	qp := l.qidOf("b", "Plan ok?")
	l.at("b", "2026-11-29T10:05:00Z", "state", "resolve", "--reject", qp, "split it")
	l.sync("b")
	// a stops meanwhile, then pulls: the re-scope is kept.
	l.at("a", "2026-11-29T10:06:00Z", "state", "stop", "--status", "blocked", "--reason", "lunch", "--resume", "/rite-build")
	l.sync("a")
	s := l.stateOf("a")
	owed := cursor(s, "rescope_pending") + " " + cursor(s, "next_action")
	if !strings.Contains(owed, qp) {
		t.Errorf("a after the pull: rescope_pending and next_action %q, want the re-scope of %s kept\n%s", owed, qp, l.read("a/"+gitWS+"state.md"))
	}
	l.doctorClean("a")
}

// agentMoves is what an agent's skill does on starting a slice: it sets
// active_slice and next_action in state.md and logs it.
func (l *gitLab) agentMoves(clone, now, slice, next string) {
	l.t.Helper()
	s := l.stateOf(clone)
	s.Set("active_slice", slice)
	s.Set("next_action", next)
	s.AppendLog(now + " build: started slice " + slice)
	l.write(clone+"/"+gitWS+mdstore.StateFile, string(s.Bytes()))
}

// Class 6: two clones working on different slices merge without a
// conflict: the later Log's slice and next_action win.
func TestClonesSlicesNoConflict(t *testing.T) {
	l := threeClones(t)
	l.agentMoves("a", "2026-11-29T10:00:00Z", "2 — api", "/rite-build 2")
	l.sync("a")
	l.agentMoves("b", "2026-11-29T10:05:00Z", "3 — ui", "/rite-build 3")
	l.sync("b")
	s := l.stateOf("b")
	if got := [2]string{cursor(s, "active_slice"), cursor(s, "next_action")}; got != [2]string{"3 — ui", "/rite-build 3"} {
		t.Errorf("after the pull: active_slice, next_action = %q, want b's (the later Log)", got)
	}
	l.doctorClean("b")
}

// answered records an answered question in clone (no pause).
func (l *gitLab) answered(clone, now, question string) {
	l.t.Helper()
	l.at(clone, now, "question", "raise", "--gate", "advisory", "--question", question, "--option", "yes", "--answered", "yes")
}

// blocksOf are clone's questions.md blocks whose question is question.
func (l *gitLab) blocksOf(clone, question string) []*mdstore.Block {
	var out []*mdstore.Block
	for _, b := range mdstore.ParseQuestions([]byte(l.read(clone + "/" + gitWS + mdstore.QuestionsFile))).Blocks() {
		if b.Value("question") == question {
			out = append(out, b)
		}
	}
	return out
}

// renumberedOnce is three clones where c's question QC (c's
// q-2026-11-29-001, paused) is q-2026-11-29-002 on origin, renumbered by
// a's merge; b has since answered QB1 and QB2 (its 001 and 002), not yet
// pulled.
func renumberedOnce(t *testing.T) *gitLab {
	l := threeClones(t)
	l.answered("a", "2026-11-29T10:00:00Z", "QA?")
	l.save("a", "a")
	l.raise("c", "2026-11-29T10:01:00Z", "QC?")
	l.sync("c")
	l.sync("a") // QC becomes 002
	l.answered("b", "2026-11-29T10:02:00Z", "QB1?")
	l.answered("b", "2026-11-29T10:03:00Z", "QB2?")
	return l
}

// renumberedTwice is renumberedOnce after b's pull: QC is
// q-2026-11-29-004 on origin.
func renumberedTwice(t *testing.T) *gitLab {
	l := renumberedOnce(t)
	l.sync("b") // QA becomes 003, QC 004
	if got := l.blocksOf("b", "QC?"); len(got) != 1 || got[0].QID != "q-2026-11-29-004" {
		t.Fatalf("origin: QC is not q-2026-11-29-004:\n%s", l.read("b/"+gitWS+mdstore.QuestionsFile))
	}
	return l
}

// Class 3: a question renumbered twice elsewhere still merges with itself:
// c rejects its q-001 and pulls, and QC is one question, rejected, under
// origin's id, with its decision there too.
func TestClonesRenumberedTwice(t *testing.T) {
	l := renumberedTwice(t)
	l.at("c", "2026-11-29T10:10:00Z", "state", "resolve", "--reject", "q-2026-11-29-001", "split it")
	l.sync("c")
	qc := l.blocksOf("c", "QC?")
	if len(qc) != 1 || qc[0].QID != "q-2026-11-29-004" || qc[0].Value("status") != "rejected" {
		t.Fatalf("QC after the pull: %d blocks, want one, q-2026-11-29-004, rejected:\n%s", len(qc), l.read("c/"+gitWS+mdstore.QuestionsFile))
	}
	if got := qc[0].Value("renumbered_from"); got != "q-2026-11-29-001, q-2026-11-29-002" {
		t.Errorf("renumbered_from %q, want the whole chain", got)
	}
	for _, q := range []string{"QA?", "QB1?", "QB2?"} {
		if n := len(l.blocksOf("c", q)); n != 1 {
			t.Errorf("%s: %d blocks, want 1", q, n)
		}
	}
	s := l.stateOf("c")
	if v := cursor(s, "next_action"); !strings.Contains(v, "q-2026-11-29-004") || s.AwaitingQID() != "" {
		t.Errorf("state.md: next_action %q awaiting %q, want the re-scope of q-2026-11-29-004 and no pause", v, s.AwaitingQID())
	}
	l.doctorClean("c")
	// The decision of QC is recorded once, under its id: a write puts every
	// entry that a merge left under another question's id where it belongs.
	l.answered("c", "2026-11-29T10:20:00Z", "QD?")
	dec := l.read("c/" + gitWS + mdstore.DecisionsFile)
	for _, r := range mdstore.DecisionRecords([]byte(dec)) {
		id := mdstore.DecisionID(r.Title)
		blocks := l.blocksOf("c", r.Question)
		if len(blocks) != 1 || blocks[0].QID != id {
			t.Errorf("decisions.md: %s records %q, which is not that question's id:\n%s", r.Title, r.Question, dec)
		}
	}
	if n := strings.Count(dec, "question: QC?"); n != 1 {
		t.Errorf("decisions.md records QC %d times, want once:\n%s", n, dec)
	}
	l.doctorClean("c")
}

// Class 2: git takes theirs' questions.md whole when only theirs changed
// it; state.md, changed only by ours, then awaits an id that is another
// question's. Every command reads the pause as the question its Awaiting
// section describes, and the next write corrects the id.
func TestClonesAwaitedFollowsIdentity(t *testing.T) {
	l := renumberedOnce(t)
	l.sync("c") // c fast-forwards: it awaits q-002
	if got := l.stateOf("c").AwaitingQID(); got != "q-2026-11-29-002" {
		t.Fatalf("c awaits %q, want q-2026-11-29-002", got)
	}
	l.save("b", "b")
	l.run("b", "git", "pull", "-q", "--no-rebase", "--no-edit")
	// b sends its questions.md and decisions.md, not its state.md (QC is
	// 004 there, 002 is QB2).
	l.run("b", "git", "checkout", "origin/main", "--", gitWS+mdstore.StateFile)
	l.run("b", "git", "commit", "-q", "-m", "questions only")
	l.run("b", "git", "push", "-q", "origin", "main")
	l.agentMoves("c", "2026-11-29T10:05:00Z", "2 — api", `/rite-resolve q-2026-11-29-002 "<answer>"`)
	l.sync("c")
	if got := l.blocksOf("c", "QC?"); len(got) != 1 || got[0].QID != "q-2026-11-29-004" {
		t.Fatalf("c: QC is not q-2026-11-29-004:\n%s", l.read("c/"+gitWS+mdstore.QuestionsFile))
	}
	if out := l.checkExits("c", 3); !strings.Contains(out, "q-2026-11-29-004") {
		t.Errorf("state check:\n%s\nwant it awaiting q-2026-11-29-004", out)
	}
	l.doctorClean("c")
	l.at("c", "2026-11-29T10:06:00Z", "state", "resolve", "q-2026-11-29-004", "1")
	s := l.stateOf("c")
	if cursor(s, "status") != "running" || s.AwaitingQID() != "" {
		t.Errorf("after answering q-2026-11-29-004: status %q awaiting %q, want running\n%s", cursor(s, "status"), s.AwaitingQID(), l.read("c/"+gitWS+mdstore.StateFile))
	}
	if b := l.blocksOf("c", "QB2?"); len(b) != 1 || b[0].Value("answer") != "yes" {
		t.Errorf("QB2 lost its answer or was answered again")
	}
	l.doctorClean("c")
}

// Class 6: two people answering one routed collect-all question on two
// clones: both responses are kept, with no conflict.
func TestClonesResponsesUnion(t *testing.T) {
	l := threeClones(t)
	l.at("a", "2026-11-29T10:00:00Z", "question", "raise", "--gate", "blocking", "--question", "Vote?", "--option", "yes", "--option", "no",
		"--route", "alice", "--route", "bob", "--route", "carol", "--strategy", "collect-all")
	l.sync("a")
	l.sync("b")
	id := l.qidOf("a", "Vote?")
	l.at("a", "2026-11-29T10:01:00Z", "state", "resolve", "--by", "alice", id, "1")
	l.sync("a")
	l.at("b", "2026-11-29T10:02:00Z", "state", "resolve", "--by", "bob", id, "2")
	l.sync("b")
	b := l.blocksOf("b", "Vote?")
	if len(b) != 1 {
		t.Fatalf("%d blocks of Vote?", len(b))
	}
	resp := b[0].Value("responses")
	if !strings.Contains(resp, "by: alice") || !strings.Contains(resp, "by: bob") {
		t.Errorf("responses after the pull:\n%s\nwant alice's and bob's", resp)
	}
	l.doctorClean("b")
}
