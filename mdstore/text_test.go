package mdstore

import "testing"

func TestTextProblemLines(t *testing.T) {
	for _, c := range []struct {
		in        string
		utf8, nul int
	}{
		{"", 0, 0},
		{"a\nb — ü\n", 0, 0},
		{"\xff", 1, 0},
		{"a\nb\nc\xe2\x82\n", 3, 0},
		{"a\n\x00\n\xff", 3, 2},
	} {
		if got := InvalidUTF8Line([]byte(c.in)); got != c.utf8 {
			t.Errorf("InvalidUTF8Line(%q) = %d, want %d", c.in, got, c.utf8)
		}
		if got := NULLine([]byte(c.in)); got != c.nul {
			t.Errorf("NULLine(%q) = %d, want %d", c.in, got, c.nul)
		}
	}
}
