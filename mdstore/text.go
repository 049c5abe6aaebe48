package mdstore

import (
	"bytes"
	"unicode/utf8"
)

// The two ways a file is not text that the engine reads: each returns the
// line (from 1) of the first offending byte, or 0 when there is none.

// InvalidUTF8Line is the line of the first byte that is not valid UTF-8.
func InvalidUTF8Line(b []byte) int {
	if utf8.Valid(b) {
		return 0
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return lineAt(b, i)
		}
		i += n
	}
	return 0
}

// NULLine is the line of the first NUL byte (binary content).
func NULLine(b []byte) int {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return lineAt(b, i)
	}
	return 0
}

// lineAt is the line (from 1) that holds byte i of b.
func lineAt(b []byte, i int) int { return 1 + bytes.Count(b[:i], []byte("\n")) }
