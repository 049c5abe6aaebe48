package mdstore

import (
	"os"
	"path/filepath"
	"slices"
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

// Holds finds a key's value wherever the block has it (a key written twice
// included), from an unread block and from a read one, and only there.
func TestHoldsAgreesWithFields(t *testing.T) {
	files, err := filepath.Glob("../testdata/fixtures/questions-*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	files = append(files, "twice")
	for _, name := range files {
		b := []byte("# Q\n\n## q-2026-11-29-001\nstatus: open\nbreakpoint: a\nBreak_point: b\n")
		if name != "twice" {
			if b, err = os.ReadFile(name); err != nil {
				t.Fatal(err)
			}
		}
		unread := ParseQuestions(b)
		for i, blk := range ParseQuestions(b).Blocks() {
			for _, f := range blk.Fields() {
				key := NormKey(f.Key)
				if !unread.Blocks()[i].Holds(key, f.Value) || !blk.Holds(key, f.Value) {
					t.Errorf("%s %s: Holds(%s, %q) = false, want true", filepath.Base(name), blk.QID, key, f.Value)
				}
				if unread.Blocks()[i].Holds(key, f.Value+"x") || blk.Holds(key, f.Value+"x") {
					t.Errorf("%s %s: Holds(%s, %q) = true, want false", filepath.Base(name), blk.QID, key, f.Value+"x")
				}
			}
		}
	}
}

// Keys gives every field's key and line, as Fields does, from an unread
// block (without allocating) and from a read one.
func TestKeysAgreeWithFields(t *testing.T) {
	files, err := filepath.Glob("../testdata/fixtures/questions-*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	type keyLine struct {
		key  string
		line int
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		unread := ParseQuestions(b)
		for i, blk := range ParseQuestions(b).Blocks() {
			var want, got, again []keyLine
			for _, f := range blk.Fields() {
				want = append(want, keyLine{f.Key, f.Line()})
			}
			unread.Blocks()[i].Keys(func(key string, line int) { got = append(got, keyLine{key, line}) })
			blk.Keys(func(key string, line int) { again = append(again, keyLine{key, line}) })
			if !slices.Equal(got, want) || !slices.Equal(again, want) {
				t.Errorf("%s %s: Keys = %v unread, %v read; Fields = %v", filepath.Base(name), blk.QID, got, again, want)
			}
		}
		if blocks := ParseQuestions(b).Blocks(); len(blocks) > 0 && !blocks[0].Row() {
			if n := testing.AllocsPerRun(10, func() { blocks[0].Keys(func(string, int) {}) }); n != 0 {
				t.Errorf("%s: Keys of an unread block: %v allocations, want 0", filepath.Base(name), n)
			}
		}
	}
}

// Nth counts the earlier blocks of the same qid, whatever the order.
func TestNth(t *testing.T) {
	b := []byte("# Q\n\n## q-2026-11-29-002\nstatus: open\n\n## q-2026-11-29-001\nstatus: open\n\n" +
		"## q-2026-11-29-002\nstatus: answered\n\n## q-2026-11-29-003\nstatus: open\n\n## q-2026-11-29-002\nstatus: open\n")
	var got []int
	for _, blk := range ParseQuestions(b).Blocks() {
		got = append(got, blk.Nth())
	}
	if want := []int{0, 0, 1, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("Nth = %v, want %v", got, want)
	}
}

func TestNormKey(t *testing.T) {
	for in, want := range map[string]string{
		"status": "status", "Raised_At": "raisedat", "raised-at": "raisedat", "Question ID": "questionid",
		"next step": "nextstep", "NEXT-STEP": "nextstep", "Ünïcode_Key": "ünïcodekey", "a_b_c_d_e_f_g_h_i_j_k_l_m_n_o_p_q_r": "abcdefghijklmnopqr",
		"": "", "__": "", "x9_Y": "x9y",
	} {
		if got := NormKey(in); got != want {
			t.Errorf("NormKey(%q) = %q, want %q", in, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = NormKey("answered_at") }); n != 0 {
		t.Errorf("NormKey(\"answered_at\"): %v allocations, want 0", n)
	}
}
