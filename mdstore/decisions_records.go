package mdstore

import (
	"bytes"
	"strings"
)

// DecisionRecord is an entry of decisions.md with what tells which question
// it records: the question's text, slice and raise time, as the entry
// copied them (an entry written before the engine copied raised_at has
// none).
type DecisionRecord struct {
	Title                     string
	Line, End                 int // the heading's line (1-based) and the line after the entry (0-based), a BOM not counted
	Question, Slice, RaisedAt string
	body                      string // the entry's fields, for telling two copies of one entry
}

// DecisionRecords returns decisions.md's entries in file order, as
// strings of their own.
func DecisionRecords(b []byte) []DecisionRecord {
	blocks := parseLedger(b).Blocks()
	out := make([]DecisionRecord, len(blocks))
	for i, bl := range blocks {
		var body strings.Builder
		for _, f := range bl.Fields() {
			body.WriteString(f.Key + "\x00" + f.Value + "\x00")
		}
		out[i] = DecisionRecord{Title: strings.Clone(bl.QID), Line: bl.Line(), End: bl.End(),
			Question: strings.Clone(bl.Value("question")), Slice: strings.Clone(bl.Value("slice")),
			RaisedAt: strings.TrimSpace(strings.Clone(bl.Value("raised_at"))), body: body.String()}
	}
	return out
}

// Same reports whether two entries record the same thing: the same title
// and fields.
func (r DecisionRecord) Same(o DecisionRecord) bool { return r.Title == o.Title && r.body == o.body }

// RetitleDecision returns decisions.md with the heading of the entry at
// line (1-based) given the title, every other byte as it was.
func RetitleDecision(b []byte, line int, title string) []byte {
	return editLines(b, line-1, line, func(l []byte) []byte {
		end := len(bytes.TrimRight(l, "\r\n"))
		return append([]byte("## "+title), l[end:]...)
	})
}

// RemoveDecision returns decisions.md without the entry r.
func RemoveDecision(b []byte, r DecisionRecord) []byte {
	return editLines(b, r.Line-1, r.End, func([]byte) []byte { return nil })
}

// editLines replaces each of the lines [from, to) of b (0-based, after a
// byte order mark) by what edit makes of it, ending included.
func editLines(b []byte, from, to int, edit func([]byte) []byte) []byte {
	start := 0
	if bytes.HasPrefix(b, []byte(utf8BOM)) {
		start = len(utf8BOM)
	}
	out := append([]byte(nil), b[:start]...)
	n := 0
	for rest := b[start:]; len(rest) > 0; n++ {
		i := bytes.IndexByte(rest, '\n') + 1
		if i == 0 {
			i = len(rest)
		}
		l := rest[:i]
		if n >= from && n < to {
			l = edit(l)
		}
		out = append(out, l...)
		rest = rest[i:]
	}
	return out
}
