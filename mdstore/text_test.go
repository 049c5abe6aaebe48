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

func TestConflictLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"# State\n| status | running |\n", 0},
		{"a\n<<<<<<< ours\nb\n=======\nc\n>>>>>>> theirs\n", 2},
		{"a\n=======\n", 2},
		{"a\n>>>>>>> theirs\n", 2},
		{"a\n<<<<<<<\n", 2},
		{"a\n<<<<<<<< eight\n========\n<<<<<<<x\n", 0},
		{"```\n<<<<<<< ours\n=======\n```\n", 0},
		{"## q-2026-11-29-001\nanswer: |-\n  ```\n<<<<<<< ours\n", 4},
		{"## q-2026-11-29-001\nanswer: |-\n  <<<<<<< ours\n  =======\n", 0},
		{"\ufeffx\r\n=======\r\n", 2},
	} {
		if got := ConflictLine([]byte(tc.in)); got != tc.want {
			t.Errorf("ConflictLine(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
