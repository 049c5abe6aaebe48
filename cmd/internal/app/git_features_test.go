package app

import (
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// Several features on several clones (docs/git.md): per-clone state stays
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

// twoFeatures is three clones of a project with two features, pay and
// feat-b, each clone with pay active.
func twoFeatures(t *testing.T) *gitLab {
	l := threeClones(t)
	l.run("a", engineName, "init", "feat-b")
	l.write("a/.devrites/ACTIVE", "pay\n")
	l.sync("a")
	for _, c := range []string{"b", "c"} {
		l.run(c, "git", "pull", "-q", "--no-rebase")
	}
	return l
}

// projectIDs are the ids of every questions.md block of clone, by
// workspace directory, and the ids held by more than one block.
func (l *gitLab) projectIDs(clone string) (map[string][]string, []string) {
	l.t.Helper()
	byWS := map[string][]string{}
	count := map[string]int{}
	for _, slug := range []string{"pay", "feat-b"} {
		data := l.read(clone + "/.devrites/work/" + slug + "/" + mdstore.QuestionsFile)
		for _, b := range mdstore.ParseQuestions([]byte(data)).Blocks() {
			byWS[slug] = append(byWS[slug], b.QID)
			count[b.QID]++
		}
	}
	var dups []string
	for id, n := range count {
		if n > 1 {
			dups = append(dups, id)
		}
	}
	return byWS, dups
}

// TestClonesQIDsUniqueAcrossFeatures: two clones raise at once in two
// features and in the same one, so that a plain per-file merge would give
// theirs' question of pay the id ours' feat-b question has; merged with
// pull --no-rebase and with --rebase: every id names one question in the
// whole project, the decision entry of the renumbered question follows it
// (and none stays under the id another question has), the Log names each
// raise once, and doctor is clean.
func TestClonesQIDsUniqueAcrossFeatures(t *testing.T) {
	for _, mode := range []string{"--no-rebase", "--rebase"} {
		t.Run(mode, func(t *testing.T) {
			l := twoFeatures(t)
			l.t = t
			// a: pay's "Which retry policy?" is q-…-001, answered.
			l.at("a", "2026-11-29T10:00:00Z", "question", "raise", "--gate", "blocking", "--question", "Which retry policy?", "--option", "three", "--option", "five")
			l.at("a", "2026-11-29T10:01:00Z", "state", "resolve", "q-2026-11-29-001", "1")
			l.save("a", "a: retry policy")
			l.run("a", "git", "push", "-q", "origin", "main")
			// b: feat-b's "Which schema?" is its q-…-001; pay's "Which
			// queue?" then q-…-002, answered.
			l.at("b", "2026-11-29T10:02:00Z", "question", "raise", "--slug", "feat-b", "--gate", "advisory", "--question", "Which schema?", "--option", "star")
			l.at("b", "2026-11-29T10:03:00Z", "question", "raise", "--gate", "blocking", "--question", "Which queue?", "--option", "kafka")
			l.at("b", "2026-11-29T10:04:00Z", "state", "resolve", "q-2026-11-29-002", "1")
			l.save("b", "b: schema and queue")
			code, out, errs := l.exec("b", "git", "pull", "-q", mode, "--no-edit")
			if code != 0 {
				t.Fatalf("b: git pull %s: exit %d\n%s%s", mode, code, out, errs)
			}
			byWS, dups := l.projectIDs("b")
			if len(dups) > 0 {
				t.Fatalf("after pull %s: ids %v name questions of two workspaces: %v", mode, dups, byWS)
			}
			retry := l.qidOf("b", "Which retry policy?")
			if retry == "q-2026-11-29-001" {
				t.Fatalf("retry policy kept q-2026-11-29-001, feat-b's schema question's id")
			}
			dec := l.read("b/" + gitWS + mdstore.DecisionsFile)
			if !strings.Contains(dec, "## "+retry+" ") {
				t.Errorf("decisions.md has no entry under %s, the retry policy's id:\n%s", retry, dec)
			}
			if strings.Contains(dec, "## q-2026-11-29-001") {
				t.Errorf("decisions.md keeps an entry under q-2026-11-29-001, feat-b's id:\n%s", dec)
			}
			st := l.read("b/" + gitWS + mdstore.StateFile)
			for _, id := range byWS["pay"] {
				if n := countRaises(st, id); n != 1 {
					t.Errorf("pay's Log names the raise of %s %d times, want once:\n%s", id, n, st)
				}
			}
			if countRaises(st, "q-2026-11-29-001") != 0 {
				t.Errorf("pay's Log names a raise of q-2026-11-29-001, a question of feat-b:\n%s", st)
			}
			l.doctorClean("b")
			// A qid without --slug is the one question that has it.
			out = l.run("b", engineName, "questions", "show", "q-2026-11-29-001")
			if !strings.Contains(out, "Which schema?") {
				t.Errorf("questions show q-2026-11-29-001:\n%s", out)
			}
			l.run("b", "git", "push", "-q", "origin", "HEAD:main")
			l.run("a", "git", "pull", "-q", mode, "--no-edit")
			if _, dups := l.projectIDs("a"); len(dups) > 0 {
				t.Errorf("a after pull: ids %v name questions of two workspaces", dups)
			}
			l.doctorClean("a")
		})
	}
}

// countRaises counts the Log lines of state.md that record the raise of id.
func countRaises(state, id string) int {
	n := 0
	for _, line := range strings.Split(state, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "- ") && strings.Contains(line, id) && strings.Contains(line, "raised") {
			n++
		}
	}
	return n
}

// TestClonesOneSidedFeatures: a raises (and answers) in pay, b in feat-b,
// and nothing else: git merges without the driver, and both features hold
// q-…-001. The ambiguity is refused with a hint that is run as printed
// (doctor --fix in the feature that raised later), after which every id
// is one question's; c makes the same repair on its own, and the clones
// then merge without conflict and agree. Both pull modes.
func TestClonesOneSidedFeatures(t *testing.T) {
	for _, mode := range []string{"--no-rebase", "--rebase"} {
		t.Run(mode, func(t *testing.T) {
			l := twoFeatures(t)
			l.t = t
			l.at("a", "2026-11-29T10:00:00Z", "question", "raise", "--gate", "blocking", "--question", "Which retry policy?", "--option", "three")
			l.at("a", "2026-11-29T10:01:00Z", "state", "resolve", "q-2026-11-29-001", "1")
			l.save("a", "a: retry policy")
			l.run("a", "git", "push", "-q", "origin", "main")
			l.at("b", "2026-11-29T10:02:00Z", "question", "raise", "--slug", "feat-b", "--gate", "blocking", "--question", "Which schema?", "--option", "star")
			l.at("b", "2026-11-29T10:03:00Z", "state", "resolve", "--slug", "feat-b", "--reject", "q-2026-11-29-001", "too wide")
			l.save("b", "b: schema")
			l.run("b", "git", "pull", "-q", mode, "--no-edit")
			l.run("b", "git", "push", "-q", "origin", "HEAD:main")
			l.run("c", "git", "pull", "-q", mode, "--no-edit")
			if _, dups := l.projectIDs("b"); len(dups) != 1 {
				t.Fatalf("want the one id git merged twice, got %v", dups)
			}
			code, _, errs := l.exec("b", engineName, "questions", "show", "q-2026-11-29-001")
			const hint = "hint: give the later one its own id: "
			if code != exitMalformed || !strings.Contains(errs, hint+"devrites-engine doctor --slug feat-b --fix\n") {
				t.Fatalf("questions show of the shared id: exit %d, want 6 and the doctor hint:\n%s", code, errs)
			}
			for _, clone := range []string{"b", "c"} {
				_, _, errs := l.exec(clone, engineName, "questions", "show", "q-2026-11-29-001")
				line := errs[strings.Index(errs, hint)+len(hint):]
				line = line[:strings.IndexByte(line, '\n')]
				l.run(clone, "sh", "-c", line)
				byWS, dups := l.projectIDs(clone)
				if len(dups) > 0 || byWS["pay"][0] != "q-2026-11-29-001" || byWS["feat-b"][0] != "q-2026-11-29-002" {
					t.Fatalf("%s after %s: ids %v, duplicates %v", clone, line, byWS, dups)
				}
				dec := l.read(clone + "/.devrites/work/feat-b/" + mdstore.DecisionsFile)
				if !strings.Contains(dec, "## q-2026-11-29-002 ") || strings.Contains(dec, "## q-2026-11-29-001") {
					t.Errorf("%s: feat-b's decision entry does not follow its question:\n%s", clone, dec)
				}
				st := l.read(clone + "/.devrites/work/feat-b/" + mdstore.StateFile)
				if countRaises(st, "q-2026-11-29-002") != 1 || strings.Contains(st, "q-2026-11-29-001") {
					t.Errorf("%s: feat-b's Log and cursor do not follow its question:\n%s", clone, st)
				}
				if !strings.Contains(st, "| next_action | /rite-plan reslice --feedback q-2026-11-29-002 |") {
					t.Errorf("%s: the re-scope feat-b owes does not follow its question:\n%s", clone, st)
				}
				l.doctorClean(clone)
				l.save(clone, clone+": doctor --fix")
			}
			l.run("b", "git", "push", "-q", "origin", "HEAD:main")
			code, out, errs := l.exec("c", "git", "pull", "-q", mode, "--no-edit")
			if code != 0 {
				t.Fatalf("c: pull after both repaired: exit %d\n%s%s", code, out, errs)
			}
			if byWS, dups := l.projectIDs("c"); len(dups) > 0 || len(byWS["feat-b"]) != 1 {
				t.Errorf("c after pull: ids %v, duplicates %v", byWS, dups)
			}
			l.doctorClean("c")
		})
	}
}
