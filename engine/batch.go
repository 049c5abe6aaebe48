package engine

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

const batchForm = "a line is qid: answer, --drop qid: reason, or --reject qid: feedback"

// Batch is a parsed `state resolve --batch`: the entries that parse, in
// line order, and the lines that do not, which ResolveBatch reports with
// the problems the questions have.
type Batch struct {
	Items []Resolution
	bad   lineErrors
}

// ReadBatch parses the lines of `state resolve --batch`: "qid: answer",
// "--drop qid: reason" and "--reject qid: feedback"; blank lines and #
// comments are skipped. A line that does not parse is kept for
// ResolveBatch to report; err when the text cannot be read or holds no
// entry at all.
func ReadBatch(s string) (*Batch, error) {
	items, bad, err := parseBatch(s)
	if err != nil {
		return nil, err
	}
	return &Batch{Items: items, bad: bad}, nil
}

// IDs are the qids the batch's entries name, in line order.
func (b *Batch) IDs() []string {
	ids := make([]string, len(b.Items))
	for i, it := range b.Items {
		ids[i] = it.QID
	}
	return ids
}

// ResolveBatch resolves a batch read by ReadBatch whole: its lines that
// do not parse and those the questions refuse are reported together, in
// line order, and nothing is applied unless every line is good.
func (e *Engine) ResolveBatch(ctx context.Context, b *Batch, by string) (*ResolveResult, error) {
	res, notify, err := e.resolve(ctx, b, by)
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
		kind := question.StatusAnswered
		if rest, ok := strings.CutPrefix(l, "--drop "); ok {
			kind, l = question.StatusDropped, strings.TrimSpace(rest)
		} else if rest, ok := strings.CutPrefix(l, "--reject "); ok {
			kind, l = question.StatusRejected, strings.TrimSpace(rest)
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
