package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

const batchForm = "a line is qid: answer, --drop qid: reason, or --reject qid: feedback"

// ParseBatch reads the lines of `state resolve --batch`: "qid: answer",
// "--drop qid: reason" and "--reject qid: feedback"; blank lines and #
// comments are skipped. Every malformed line is reported, not only the
// first.
func ParseBatch(s string) ([]Resolution, error) {
	out, bad, err := parseBatch(s)
	if err == nil {
		err = bad.err()
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ResolveBatch resolves the batch s whole: its lines that do not parse and
// those the questions refuse are reported together, in line order, and
// nothing is applied unless every line is good.
func (e *Engine) ResolveBatch(ctx context.Context, s, by string) (*ResolveResult, error) {
	items, bad, err := parseBatch(s)
	if err != nil {
		return nil, err
	}
	res, notify, err := e.resolve(ctx, items, by, true, bad)
	return notified(ctx, res, notify, err)
}

// parseBatch returns the entries that parse and the lines that do not; err
// when the text cannot be read or holds no entry at all.
func parseBatch(s string) ([]Resolution, lineErrors, error) {
	var out []Resolution
	var bad lineErrors
	sc := bufio.NewScanner(strings.NewReader(strings.TrimPrefix(s, "\ufeff"))) // a byte order mark an editor put there
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	n := 0
	for sc.Scan() {
		n++
		l := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		kind := StatusAnswered
		if rest, ok := strings.CutPrefix(l, "--drop "); ok {
			kind, l = StatusDropped, strings.TrimSpace(rest)
		} else if rest, ok := strings.CutPrefix(l, "--reject "); ok {
			kind, l = StatusRejected, strings.TrimSpace(rest)
		} else if strings.HasPrefix(l, "-") {
			bad = append(bad, lineError{n, mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "batch line %d: unknown flag in %q", n, l), batchForm)})
			continue
		}
		id, text, ok := strings.Cut(l, ":")
		if !ok {
			bad = append(bad, lineError{n, mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "batch line %d: no ':' after the qid", n), batchForm)})
			continue
		}
		out = append(out, Resolution{QID: strings.TrimSpace(id), Kind: kind, Text: strings.TrimSpace(text), Line: n})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, mdstore.Errorf(ErrBadArgs, "batch: %v", err)
	}
	if len(out) == 0 && len(bad) == 0 {
		return nil, nil, mdstore.Errorf(ErrBadArgs, "batch: no entries")
	}
	return out, bad, nil
}

// lineError is a problem of one batch line.
type lineError struct {
	line int
	err  error
}

// lineErrors are the problems of a batch.
type lineErrors []lineError

// err is the first problem by line, counting the others, whose messages
// follow as hints; nil when there is none. The exit code is the first
// problem's.
func (l lineErrors) err() error {
	if len(l) == 0 {
		return nil
	}
	l = slices.Clone(l)
	slices.SortStableFunc(l, func(a, b lineError) int { return a.line - b.line })
	if len(l) == 1 {
		return l[0].err
	}
	hints := make([]string, 0, len(l))
	for _, e := range l[1:] {
		hints = append(hints, "also "+e.err.Error())
	}
	hints = append(hints, "nothing was applied; a batch applies whole or not at all")
	return mdstore.WithHint(&moreErrors{first: l[0].err, more: len(l) - 1}, hints...)
}

// moreErrors is the first problem of several; it unwraps to the first.
type moreErrors struct {
	first error
	more  int
}

func (m *moreErrors) Error() string {
	return fmt.Sprintf("%v (and %d more bad lines)", m.first, m.more)
}
func (m *moreErrors) Unwrap() error { return m.first }

// validate checks one resolution by by against the files: the qid heads
// one block, and the question is open and the resolution valid for it, or
// the question is already final with this very resolution, which makes
// the command (or the batch line) an identical re-run; final otherwise, it
// is a conflict. A routed
// question takes only its responders' responses (validateResponse).
func (e *Engine) validate(f *files, it Resolution, by string, batch bool, where string) (string, error) {
	b, err := e.lookup(f.questions, it.QID)
	switch {
	case errors.Is(err, ErrUnknownQID) && batch:
		return "", mdstore.Errorf(ErrBadArgs, "%s: unknown qid", where).Fix(mdstore.ListQuestions, "")
	case err != nil && batch:
		return "", fmt.Errorf("batch line %d: %w", it.Line, err)
	case err != nil:
		return "", err
	}
	if q := fromBlock(b, e.Now()); q.routed() && !b.Row() {
		return b.QID, e.validateResponse(b, q, it, by, where)
	}
	r := resolution{kind: it.Kind, text: it.Text}
	st := b.Value("status")
	if st == StatusOpen {
		if rec, ok := recordedDecision(f.decisions, b.QID); ok && !b.Row() && rec.sameQuestion(b) {
			return "", mdstore.Errorf(ErrConflict, "%s: questions.md has it open, but decisions.md:%d records it %s (a stale editor save or a bad merge?)", where, rec.line, rec.status).
				Hint("nothing was written: a second decision would contradict the first").Fix(mdstore.RunDoctorFix, "")
		}
		want, err := e.resolvedValues(b, r)
		if err != nil {
			return "", fmt.Errorf("%s: %w", where, err)
		}
		if b.Row() && !mdstore.FitsCell(want.text) {
			return "", mdstore.WithHint(mdstore.Errorf(ErrBadArgs, "%s: a question register row keeps the %s in one table cell, which cannot hold %q", where, textOf[it.Kind], brief(want.text)),
				"give it on one line, without | and without spaces or a backslash at its ends; the row stays in its table")
		}
		return b.QID, nil
	}
	want, err := e.resolvedValues(b, r)
	if err != nil || !sameResolution(b, want) {
		return "", mdstore.WithHint(mdstore.Errorf(ErrConflict, "%s is already %s (%q), not open", where, st, brief(b.Value("answer"))),
			"a final question is not resolved again; raise a new question if the decision changed")
	}
	return b.QID, nil // an identical re-run, in a batch as alone
}
