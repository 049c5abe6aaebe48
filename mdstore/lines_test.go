package mdstore

import (
	"strings"
	"testing"
)

// Form, CutLines and Lines are one line model: the merge driver's lines
// (CutLines of Form's body) are Lines' text and ending, and both report
// the same byte order mark and ending for new lines.
func TestFormIsTheLineModel(t *testing.T) {
	for _, tc := range []struct {
		in, body string
		bom      bool
		nl       string
	}{
		{"", "", false, "\n"},
		{"\ufeff", "", true, "\n"},
		{"a", "a", false, "\n"},
		{"a\n", "a\n", false, "\n"},
		{"a\r\nb\n", "a\r\nb\n", false, "\r\n"},
		{"a\nb\r\n", "a\nb\r\n", false, "\n"},
		{"\r\n", "\r\n", false, "\r\n"},
		{"\n\r\n", "\n\r\n", false, "\n"},
		{"a\r", "a\r", false, "\n"},
		{"a\r\r\n", "a\r\r\n", false, "\r\n"},
		{"\ufeff## x\r\n\r\nlast", "## x\r\n\r\nlast", true, "\r\n"},
		{"\ufeff\ufeffa\n", "\ufeffa\n", true, "\n"},
	} {
		body, bom, nl := Form(tc.in)
		if body != tc.body || bom != tc.bom || nl != tc.nl {
			t.Errorf("Form(%q) = %q, %v, %q; want %q, %v, %q", tc.in, body, bom, nl, tc.body, tc.bom, tc.nl)
		}
		lines, lbom, lnl := Lines([]byte(tc.in))
		if lbom != bom || lnl != nl {
			t.Errorf("Lines(%q) reports bom %v, nl %q; Form reports %v, %q", tc.in, lbom, lnl, bom, nl)
		}
		cut := CutLines(body)
		if strings.Join(cut, "") != body {
			t.Errorf("CutLines(%q) joins to %q", body, strings.Join(cut, ""))
		}
		if len(cut) != len(lines) {
			t.Errorf("%q: CutLines gives %d lines, Lines %d", tc.in, len(cut), len(lines))
			continue
		}
		for i, l := range lines {
			if cut[i] != l.Text+l.EOL {
				t.Errorf("%q line %d: CutLines gives %q, Lines %q + %q", tc.in, i+1, cut[i], l.Text, l.EOL)
			}
		}
	}
}
