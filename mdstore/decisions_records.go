package mdstore

import (
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

// RecordsQuestion reports whether a decision that copied the question text
// asked and the raise time raised (a DecisionRecord's Question and
// RaisedAt) is of the question that asks question and was raised at
// raisedAt, by SameAsking. A decision that copied no text (one written by
// hand) cannot tell, and is taken as its id's question's.
func RecordsQuestion(asked, raised, question, raisedAt string) bool {
	asked = OneLine(asked)
	return asked == "" || SameAsking(asked, strings.TrimSpace(raised), OneLine(question), strings.TrimSpace(raisedAt))
}

// SameAsking is the rule that tells whether two copies (a decision, a
// question) are of one question, over normalised values: text is the
// question's text with its white-space runs as one space (or a digest of
// it), raised its raise time, "" where a copy has none. The texts agree,
// and so do the raise times where both have one: two questions may ask one
// text, and two clones raise in one second, so neither alone is an
// identity.
func SameAsking[T comparable](text T, raised string, otherText T, otherRaised string) bool {
	return text == otherText && (raised == "" || otherRaised == "" || raised == otherRaised)
}

// Same reports whether two entries record the same thing: the same title
// and fields.
func (r DecisionRecord) Same(o DecisionRecord) bool { return r.Title == o.Title && r.body == o.body }

// RetitleDecision returns decisions.md with the heading of the entry at
// line (1-based) given the title, every other byte as it was.
func RetitleDecision(b []byte, line int, title string) []byte {
	q := parseLedger(b)
	q.d.setText(line-1, "## "+title)
	return q.Bytes()
}

// RemoveDecision returns decisions.md without the entry r.
func RemoveDecision(b []byte, r DecisionRecord) []byte {
	q := parseLedger(b)
	q.d.splice(r.Line-1, r.End, nil)
	return q.Bytes()
}
