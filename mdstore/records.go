package mdstore

import (
	"strings"
)

// A record list is a field value that holds records, each a set of fields
// in the format of a question block's own fields, as a YAML list of
// mappings reads:
//
//	responses: |
//	  - by: alice
//	    at: 2026-11-29T14:05:00Z
//	    status: answered
//	    answer: |-
//	      two lines
//	      of text
//	  - by: bob
//	    …
//
// Inside the value, a record starts at a line "- " and its other lines are
// indented by two spaces; each of its fields is written as encodeField
// writes a block's, so a text that one line cannot carry exactly is a block
// scalar indented under its key. No text can therefore start a line at
// the record's own indentation: a field value holding "- by: mallory" or
// "status: answered" stays inside its field, and the value itself, a block
// scalar of the question, cannot start a column-0 line of the file.

// EncodeRecords renders records as a field value that ParseRecords reads
// back exactly. Every record needs at least one field, and keys are field
// keys (a letter, then letters, digits, spaces, '_' or '-'); values are
// text with "\n" line breaks, as everything the engine writes.
func EncodeRecords(recs [][]KV) string {
	var b strings.Builder
	for _, r := range recs {
		for i, kv := range r {
			for j, l := range encodeField(kv.Key, kv.Value) {
				switch {
				case i == 0 && j == 0:
					b.WriteString("- ")
				case l == "":
					// An empty line of a value stays empty: indenting it
					// would add spaces the value does not have.
				default:
					b.WriteString("  ")
				}
				b.WriteString(l)
				b.WriteByte('\n')
			}
		}
	}
	return b.String()
}

// ParseRecords reads a record list. A value that is not one (a line before
// the first record that is not blank, a line neither "- …" nor indented, a
// line of a record that is not one of its fields) is an ErrMalformed error
// naming the line of the value, counted from 1; "" is no records.
func ParseRecords(v string) ([][]KV, error) {
	var recs [][]line
	first := make([]int, 0, 4) // the value line each record starts at
	for n, l := range strings.Split(strings.TrimSuffix(v, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "- "):
			recs = append(recs, []line{{text: l[2:]}})
			first = append(first, n+1)
		case len(recs) == 0 && isBlank(l):
			// blank lines before the first record
		case len(recs) == 0:
			return nil, Errorf(ErrMalformed, "value line %d: %q does not start a record (\"- key: value\")", n+1, l)
		case l == "":
			recs[len(recs)-1] = append(recs[len(recs)-1], line{})
		case strings.HasPrefix(l, "  "):
			recs[len(recs)-1] = append(recs[len(recs)-1], line{text: l[2:]})
		default:
			return nil, Errorf(ErrMalformed, "value line %d: %q is neither a new record (\"- \") nor indented under one", n+1, l)
		}
	}
	out := make([][]KV, 0, len(recs))
	for k, r := range recs {
		fields := readFields(r, 0, nil, 0)
		covered := make([]bool, len(r))
		for _, f := range fields {
			for i := f.start; i < f.end; i++ {
				covered[i] = true
			}
		}
		for i, l := range r {
			if !covered[i] && !isBlank(l.text) {
				return nil, Errorf(ErrMalformed, "value line %d: %q is not a field of the record", first[k]+i, strings.TrimSpace(l.text))
			}
		}
		if len(fields) == 0 {
			return nil, Errorf(ErrMalformed, "value line %d: a record without fields", first[k])
		}
		kvs := make([]KV, len(fields))
		for i, f := range fields {
			kvs[i] = KV{f.Key, f.Value}
		}
		out = append(out, kvs)
	}
	return out, nil
}
