package mdstore

import "testing"

// A line knows where it was in the text read, and an edit makes a line
// that does not: the stretches written from the text read end exactly at
// an edited line, even one edited to the text it had, and a line moved by
// an insertion above it is still found where it was.
func TestUneditedRunsEndAtEdits(t *testing.T) {
	src := "a\nbb\r\nccc\n\nd"
	for _, tc := range []struct {
		name  string
		edit  func(d *doc)
		runs  [][2]int // [from, to) of each run from line 0 on, and the lines between
		texts []string
	}{
		{"none", func(*doc) {}, [][2]int{{0, 5}}, []string{src}},
		{"same text", func(d *doc) { d.setText(1, "bb") }, [][2]int{{0, 1}, {2, 5}}, []string{"a\n", "ccc\n\nd"}},
		{"inserted", func(d *doc) { d.splice(1, 1, d.newLines("new")) }, [][2]int{{0, 1}, {2, 6}}, []string{"a\n", "bb\r\nccc\n\nd"}},
		{"removed", func(d *doc) { d.splice(2, 3, nil) }, [][2]int{{0, 2}, {2, 4}}, []string{"a\nbb\r\n", "\nd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := splitString(src)
			tc.edit(&d)
			var got [][2]int
			var texts []string
			for i := 0; i < len(d.lines); {
				j, run := d.unedited(i)
				if j == i {
					i++
					continue
				}
				got, texts = append(got, [2]int{i, j}), append(texts, run)
				i = j
			}
			if len(got) != len(tc.runs) {
				t.Fatalf("got runs %v %q, want %v %q", got, texts, tc.runs, tc.texts)
			}
			for k := range got {
				if got[k] != tc.runs[k] || texts[k] != tc.texts[k] {
					t.Errorf("run %d: got %v %q, want %v %q", k, got[k], texts[k], tc.runs[k], tc.texts[k])
				}
			}
		})
	}
}
