package engine

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// A person's word is bound to the question, not to its id
// (docs/formats.md, "Question fingerprint"). A merge may give a question's
// id to another question and renumber it: a token made for it names its
// fingerprint, and finds it under whatever id it has now, or nothing; a
// person who names the id while two open questions have held it is asked
// which one (--fingerprint), never given the one that holds it now.

// AmbiguousError is the refusal of an id that two open questions answer
// to: one holds it now, the other held it before a merge renumbered it
// (its renumbered_from names it). It wraps ErrAmbiguous.
type AmbiguousError struct {
	ID string
	// Questions are both, the one that holds the id first, each with its
	// Fingerprint and Contested set.
	Questions []question.Question
	// Resolve is the command that answers each (ResolveCommand).
	Resolve []string
	// Slug is the workspace, when the project has several (a command
	// that names one of them carries --slug).
	Slug string
}

func (a *AmbiguousError) Error() string {
	var each []string
	for _, q := range a.Questions {
		was := ""
		if q.QID != a.ID {
			was = " (was " + a.ID + ")"
		}
		each = append(each, fmt.Sprintf("%s%s %q, fingerprint %s", q.QID, was, mdstore.OneLine(q.Question), question.ShortFingerprint(q.Fingerprint)))
	}
	return fmt.Sprintf("%s is ambiguous: a merge gave it to another open question: %s", a.ID, strings.Join(each, "; "))
}

func (a *AmbiguousError) Unwrap() error { return ErrAmbiguous }

// described is q as the engine hands it out: with its fingerprint, and
// contested when a merge gave an id it has had to another open question.
func (e *Engine) described(q question.Question, contested bool) question.Question {
	slug := ""
	if e.WS != nil {
		slug = e.WS.Slug
	}
	q.Fingerprint = question.Fingerprint(slug, q)
	q.Contested = q.Contested || contested
	return q
}

// pickFlag is the --fingerprint of a command that names q: only for a
// contested question, whose id alone is refused.
func pickFlag(q question.Question) string {
	if !q.Contested || q.Fingerprint == "" {
		return ""
	}
	return "--fingerprint " + question.ShortFingerprint(q.Fingerprint) + " "
}

// readFingerprint reads a fingerprint, or a prefix of one: hex digits,
// FingerprintMin to 64 of them, in either case.
func readFingerprint(fp string) (string, error) {
	fp = strings.ToLower(strings.TrimSpace(fp))
	if _, err := hex.DecodeString(fp + strings.Repeat("0", len(fp)%2)); err != nil || len(fp) < question.FingerprintMin || len(fp) > 64 {
		return "", mdstore.Errorf(ErrBadArgs, "--fingerprint %q is not a fingerprint: want %d to 64 hex digits", fp, question.FingerprintMin).
			Hint("copy it from questions show, or from the refusal that named it")
	}
	return fp, nil
}

// hadID reports whether b has had id: its id or one its renumbered_from
// names, in any case.
func hadID(b *mdstore.Block, id string, renumbered string) bool {
	if strings.EqualFold(b.QID, id) {
		return true
	}
	for x := range qid.All(renumbered) {
		if strings.EqualFold(x, id) {
			return true
		}
	}
	return false
}

// find is the question a command or a token means by id: with a
// fingerprint (token, a whole one from a token; else the engine's Pick,
// from --fingerprint), the question that has it; without one, the
// question that holds id, unless another open question held it before a
// merge renumbered it (an AmbiguousError). A token's question is found
// under whatever id it has now; a --fingerprint's must have held id.
func (e *Engine) find(f *Files, id, token string) (*mdstore.Block, error) {
	qs := f.Questions
	fp := token
	if fp == "" {
		fp = e.Pick
	}
	if fp != "" {
		return e.byFingerprint(qs, id, fp, token != "")
	}
	b, err := e.lookup(qs, id)
	if err != nil {
		return nil, err
	}
	if v, _ := b.Peek("status"); v[0] != question.StatusOpen || f.renumbered != nil && !f.renumbered[strings.ToLower(b.QID)] {
		return b, nil // no renumbered_from names its id: no other question held it
	}
	for _, o := range qs.Blocks() {
		if o == b {
			continue
		}
		// Status first: most blocks of a large file are final, and a
		// look for a field a block lacks reads all of its fields.
		if st, _ := o.Peek("status"); st[0] != question.StatusOpen {
			continue
		}
		if v, ok := o.Peek("renumberedfrom"); !ok[0] || !hadID(o, b.QID, v[0]) {
			continue
		}
		a := &AmbiguousError{ID: b.QID}
		if e.severalWorkspaces() {
			a.Slug = e.WS.Slug
		}
		for _, x := range []*mdstore.Block{b, o} {
			q := e.described(question.FromBlock(x, e.Now()), true)
			a.Questions, a.Resolve = append(a.Questions, q), append(a.Resolve, e.ResolveCommand(q))
		}
		return nil, a
	}
	return b, nil
}

// byFingerprint is find with a fingerprint: the one block whose
// fingerprint starts with fp. The blocks that have held id are looked at
// first; a token's question, which a merge may have renumbered twice, is
// looked for in every block when none of those is it.
func (e *Engine) byFingerprint(qs *mdstore.Questions, id, fp string, token bool) (*mdstore.Block, error) {
	fp, err := readFingerprint(fp)
	if err != nil {
		return nil, err
	}
	now := e.Now()
	var found []*mdstore.Block
	for _, all := range []bool{false, true} {
		for _, b := range qs.Blocks() {
			v, _ := b.Peek("renumberedfrom")
			if !all && !hadID(b, id, v[0]) {
				continue
			}
			if strings.HasPrefix(question.Fingerprint(e.WS.Slug, question.FromBlock(b, now)), fp) {
				found = append(found, b)
			}
		}
		if len(found) > 0 || !token {
			break
		}
	}
	switch {
	case len(found) == 1 && qs.Find(found[0].QID) == found[0]:
		return found[0], nil
	case len(found) > 0:
		if _, err := e.lookup(qs, found[0].QID); err != nil {
			return nil, err // one question twice (a bad merge, a hand edit): its id says where
		}
		return nil, mdstore.Errorf(ErrAmbiguous, "%s: fingerprint %s is the start of %d questions' fingerprints", e.WS.Path(mdstore.QuestionsFile), fp, len(found)).
			Hint("give more of its digits")
	case token:
		return nil, mdstore.Errorf(ErrChanged, "%s: the question changed: no question of %s is the one this was made for (a merge, a branch switch or an edit changed it)", id, e.WS.Slug).
			Hint("nothing was recorded; answer the question as it is now").Fix(ListQuestions, "")
	}
	return nil, mdstore.Errorf(ErrChanged, "%s: no question that has had this id has fingerprint %s", id, fp).
		Hint("nothing was written; questions show names each question's fingerprint").Fix(ListQuestions, "")
}

// contested are the ids two open questions answer to: one holds the id,
// another held it before a merge renumbered it. Most files have none,
// found with a look at two fields of each block.
func contested(qs *mdstore.Questions) map[string]bool {
	var was map[string]bool
	for _, b := range qs.Blocks() {
		if st, _ := b.Peek("status"); st[0] != question.StatusOpen {
			continue // as in find: the status first
		}
		if v, ok := b.Peek("renumberedfrom"); ok[0] {
			for id := range qid.All(v[0]) {
				if was == nil {
					was = map[string]bool{}
				}
				was[strings.ToLower(id)] = true
			}
		}
	}
	if was == nil {
		return nil
	}
	out := map[string]bool{}
	for _, b := range qs.Blocks() {
		if v, _ := b.Peek("status"); v[0] == question.StatusOpen && was[strings.ToLower(b.QID)] {
			out[strings.ToLower(b.QID)] = true
		}
	}
	return out
}

// isContested reports whether q is one of two open questions that answer
// to an id of set (contested).
func isContested(q question.Question, set map[string]bool) bool {
	if len(set) == 0 || q.Status != question.StatusOpen {
		return false
	}
	if set[strings.ToLower(q.QID)] {
		return true
	}
	for id := range qid.All(q.RenumberedFrom) {
		if set[strings.ToLower(id)] {
			return true
		}
	}
	return false
}
