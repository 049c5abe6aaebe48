package mdstore

import "strings"

// Markdown table cells, as state.md's cursor and the other tables the
// engine keeps (recovery.md's ledger) write them: a pipe in a value is
// written "\|", a backslash that would change how the cell reads "\\".

// IsRow reports whether a line is a table row.
func IsRow(t string) bool { return strings.HasPrefix(strings.TrimLeft(t, " "), "|") }

// RowCells returns a row's cells, trimmed and still escaped. An escaped
// pipe does not end a cell; a row without its closing pipe still ends at
// the end of the line.
func RowCells(t string) []string {
	spans, _ := splitRow(t)
	cells := make([]string, len(spans))
	for i, sp := range spans {
		cells[i] = t[sp[0]:sp[1]]
	}
	return cells
}

// UnescapeCell reads a cell's text: "\|" is a pipe and "\\" a backslash, as
// in GitHub's tables; any other backslash is itself.
func UnescapeCell(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '|' || s[i+1] == '\\') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// EscapeCell escapes what would end the cell or change how UnescapeCell
// reads it: pipes, and backslashes before a pipe, another backslash or the
// end of the value. v is one line.
func EscapeCell(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '|':
			b.WriteString(`\|`)
		case v[i] == '\\' && (i+1 == len(v) || v[i+1] == '|' || v[i+1] == '\\'):
			b.WriteString(`\\`)
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// escapeCell folds a value onto one line (state.md keeps one line per key)
// and escapes it.
func escapeCell(v string) string { return EscapeCell(OneLine(v)) }
