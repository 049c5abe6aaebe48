package mdstore

import (
	"os"
	"path/filepath"
	"testing"
)

// Peek reads what Get reads, from an unread block and from a read one.
func TestPeekAgreesWithGet(t *testing.T) {
	files, err := filepath.Glob("../testdata/fixtures/questions-*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	keys := []string{"status", "gate", "sla", "options"}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		peeked := ParseQuestions(b)
		for i, blk := range ParseQuestions(b).Blocks() {
			values, found := peeked.Blocks()[i].Peek(keys...)
			for k, key := range keys {
				want, ok := blk.Get(key)
				if values[k] != want || found[k] != ok {
					t.Errorf("%s %s: Peek(%s) = %q, %v; Get = %q, %v", filepath.Base(name), blk.QID, key, values[k], found[k], want, ok)
				}
			}
			// A block already read answers from its fields.
			if v, f := blk.Peek(keys...); v != values || f != found {
				t.Errorf("%s %s: Peek after Get = %q, %v; before = %q, %v", filepath.Base(name), blk.QID, v, f, values, found)
			}
		}
	}
}
