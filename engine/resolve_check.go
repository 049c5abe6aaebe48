package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// The checks of a resolution, all made before anything is written: its
// text and qid (cleanItems), then, under the lock, the question it
// resolves (validate).

// checked is one resolution validated against the files, with what it
// takes from them, each computed once: the question as its block reads
// and the values it writes.
type checked struct {
	Resolution // its QID as questions.md spells it
	q          question.Question
	want       resolution // resolvedValues of the resolution
	routed     bool       // a response to a routed question (respond.go)
}

// cleanItems checks what needs no file: each resolution's text (clean and
// not blank) and qid, and that a batch names each qid once. It returns the
// good ones, with their text normalised, and the problems of the batch
// (the lines that did not parse among them); a resolution from the
// command line returns its problem as err.
func cleanItems(b *Batch) ([]Resolution, lineErrors, error) {
	bad := slices.Clone(b.bad)
	var items []Resolution
	seen := map[string]int{}
	for _, it := range b.Items {
		what := textOf[it.Kind]
		text, err := config.CleanText(what, it.Text)
		if err == nil && blank(text) {
			err = mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "empty %s", what),
				"an empty answer is never approval; give the answer, or --drop/--reject with a reason")
		}
		if err == nil {
			err = placeholderText(it.Kind, text)
		}
		if prev, dup := seen[it.QID]; err == nil && dup && it.Line > 0 {
			err = mdstore.Errorf(ErrBadArgs, "also on line %d", prev)
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", it.where(), err)
		}
		if qerr := checkQID(it.QID); qerr != nil {
			err = qerr
			if it.Line > 0 {
				err = fmt.Errorf("batch line %d: %w", it.Line, qerr)
			}
		}
		switch {
		case err != nil && it.Line == 0:
			return nil, nil, err
		case err != nil:
			bad = append(bad, lineError{it.Line, err})
			continue
		}
		it.Text = text
		items = append(items, it)
		seen[it.QID] = it.Line
	}
	return items, bad, nil
}

// validateAll validates items against the files (validate), and a batch's
// qids as questions.md spells them, each named once; bad are the problems
// found before the files were read.
func (e *Engine) validateAll(f *Files, items []Resolution, bad lineErrors, by string) ([]checked, error) {
	bad = slices.Clone(bad)
	cs := make([]checked, 0, len(items))
	lineOf := map[string]int{}
	for _, it := range items {
		c, err := e.validate(f, it, by)
		if err == nil {
			err = e.personGuard(c.q, it, it.where()) // person.go
		}
		switch {
		case err != nil && it.Line == 0:
			return nil, err
		case err != nil:
			bad = append(bad, lineError{it.Line, err})
			continue
		}
		if prev, dup := lineOf[c.QID]; dup && it.Line > 0 {
			bad = append(bad, lineError{it.Line, mdstore.Errorf(ErrBadArgs, "%s: also on line %d (as %s)", it.where(), prev, c.QID)})
		}
		lineOf[c.QID] = it.Line
		cs = append(cs, c)
	}
	return cs, bad.err()
}

// validate checks one resolution by by against the files: the qid heads
// one block, and the question is open and the resolution valid for it, or
// the question is already final with this very resolution, which makes
// the command (or the batch line) an identical re-run; final otherwise, it
// is a conflict. A routed question takes only its responders' responses
// (validateResponse). It returns the resolution with what it read.
func (e *Engine) validate(f *Files, it Resolution, by string) (checked, error) {
	where := it.where()
	b, err := e.find(f, it.QID, it.Fingerprint)
	switch {
	case errors.Is(err, ErrUnknownQID) && it.Line > 0:
		return checked{}, mdstore.Errorf(ErrBadArgs, "%s: unknown qid", where).Fix(ListQuestions, "")
	case err != nil && it.Line > 0:
		return checked{}, fmt.Errorf("batch line %d: %w", it.Line, err)
	case err != nil:
		return checked{}, err
	}
	c := checked{Resolution: it, q: question.FromBlock(b, e.Now())}
	c.QID = b.QID
	if c.q.Routed() && !b.Row() {
		c.routed = true
		c.want, err = e.validateResponse(b, c.q, it, by, where)
		return c, err
	}
	c.want, err = e.resolvedValues(b, resolution{kind: it.Kind, text: it.Text, via: it.Via})
	if c.q.Status != question.StatusOpen {
		if err != nil || !sameResolution(b, c.want) {
			return c, mdstore.WithHint(mdstore.Errorf(ErrConflict, "%s is already %s (%q), not open", where, c.q.Status, question.Brief(b.Value("answer"))),
				"a final question is not resolved again; raise a new question if the decision changed")
		}
		return c, nil // an identical re-run, in a batch as alone
	}
	if rec, ok := recordedDecision(f.Decisions, b.QID); ok && !b.Row() && rec.SameQuestion(b) {
		return c, mdstore.Errorf(ErrConflict, "%s: questions.md has it open, but decisions.md:%d records it %s (a stale editor save or a bad merge?)", where, rec.Line, rec.Status).
			Hint("nothing was written: a second decision would contradict the first").Fix(RunDoctorFix, "")
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", where, err)
	}
	if b.Row() && !mdstore.FitsCell(c.want.text) {
		return c, mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "%s: a question register row keeps the %s in one table cell, which cannot hold %q", where, textOf[it.Kind], question.Brief(c.want.text)),
			"give it on one line, without | and without spaces or a backslash at its ends; the row stays in its table")
	}
	return c, nil
}

// placeholderText refuses a resolution's text that is a placeholder
// (the whole text, trimmed, one "<…>": question.IsPlaceholder) or a bare
// --help or -h (docs/formats.md, "Placeholders"). kind is the
// resolution's status, for the words of the error.
func placeholderText(kind, text string) error {
	t := strings.TrimSpace(text)
	// The line pasted where no shell takes its quotes off (a batch file,
	// a tool's argument) keeps them: "<answer>" is the placeholder too.
	if len(t) > 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		t = strings.TrimSpace(t[1 : len(t)-1])
	}
	what := textOf[kind]
	switch {
	case t == "--help" || t == "-h":
		return mdstore.Errorf(ErrBadArgs, "the %s is %q: a request for help is never an answer", what, t).
			Hint("nothing was written; for help run: devrites-engine help state resolve")
	case question.IsPlaceholder(t) && kind == question.StatusAnswered:
		return mdstore.Errorf(ErrBadArgs, "the %s is %q, the placeholder of the printed command", what, t).
			Hint("nothing was written; replace " + t + " with the answer itself: an option number, an option's title, or words")
	case question.IsPlaceholder(t):
		return mdstore.Errorf(ErrBadArgs, "the %s is %q, the placeholder of the printed command", what, t).
			Hint("nothing was written; replace " + t + " with the " + what + " itself, in words")
	}
	return nil
}
