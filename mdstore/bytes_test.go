package mdstore

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestWriteBackUnchanged(t *testing.T) {
	for name, data := range fixtures(t, "*.md") {
		t.Run(name, func(t *testing.T) {
			if got := ParseQuestions(data).Bytes(); !bytes.Equal(got, data) {
				t.Errorf("questions: got %q, want %q", got, data)
			}
			if got := ParseState(data).Bytes(); !bytes.Equal(got, data) {
				t.Errorf("state: got %q, want %q", got, data)
			}
		})
	}
}

// checkKept verifies what an edit must keep of a file's bytes.
func checkKept(t *testing.T, before, after []byte) {
	t.Helper()
	if got, want := bytes.HasPrefix(after, []byte(utf8BOM)), bytes.HasPrefix(before, []byte(utf8BOM)); got != want {
		t.Errorf("BOM: got %v, want %v", got, want)
	}
	if got, want := bytes.HasSuffix(after, []byte("\n")), bytes.HasSuffix(before, []byte("\n")); got != want {
		t.Errorf("final newline: got %v, want %v", got, want)
	}
	if bytes.Contains(before, []byte("\r\n")) {
		if lf, crlf := bytes.Count(after, []byte("\n")), bytes.Count(after, []byte("\r\n")); lf != crlf {
			t.Errorf("CRLF file: got %d LF endings of which %d CRLF", lf, crlf)
		}
	}
	for _, word := range []string{"Ünïcödé", "日本語", "🚀", "«ja»", "∑ x²", "ça marche", "—"} {
		if got, want := bytes.Count(after, []byte(word)), bytes.Count(before, []byte(word)); got < want {
			t.Errorf("%q: got %d, want at least %d", word, got, want)
		}
	}
}

func TestQuestionsEditKeepsBytes(t *testing.T) {
	for name, data := range fixtures(t, "questions-*.md") {
		t.Run(name, func(t *testing.T) {
			q := ParseQuestions(data)
			blocks := q.Blocks()
			last := blocks[len(blocks)-1]
			if err := q.Set(last.QID, KV{"status", "answered"}, KV{"resolution", "Ünïcödé\nline two"}, KV{"answered_by", "human"}); err != nil {
				t.Fatal(err)
			}
			checkKept(t, data, q.Bytes())
			q.Append("q-2099-01-01-001", KV{"status", "open"}, KV{"question", "日本語\n🚀"})
			checkKept(t, data, q.Bytes())
			again := ParseQuestions(q.Bytes())
			if got, want := len(again.Blocks()), len(blocks)+1; got != want {
				t.Fatalf("blocks: got %d, want %d", got, want)
			}
			if got := again.Find(last.QID).Value("resolution"); got != "Ünïcödé\nline two" {
				t.Errorf("resolution: got %q, want %q", got, "Ünïcödé\nline two")
			}
			if got := again.Find("q-2099-01-01-001").Value("question"); got != "日本語\n🚀" {
				t.Errorf("question: got %q, want %q", got, "日本語\n🚀")
			}
			// Lines before the edited block are untouched.
			head := strings.Join(strings.SplitAfter(string(data), "\n")[:last.head], "")
			if !strings.HasPrefix(string(q.Bytes()), head) {
				t.Errorf("bytes before the edited block changed")
			}
		})
	}
}

func TestStateEditKeepsBytes(t *testing.T) {
	for name, data := range fixtures(t, "state-*.md") {
		t.Run(name, func(t *testing.T) {
			s := ParseState(data)
			s.Set("status", "running")
			s.Set("phase", "build «ok»")
			s.Set("return_next_action", "日本語")
			s.ClearAwaiting()
			s.SetAwaiting(KV{"question_id", "q-2026-01-01-001"}, KV{"question", "Ünïcödé?"})
			s.AppendLog("2026-01-01T00:00:00Z raised q-2026-01-01-001 — 🚀")
			checkKept(t, data, s.Bytes())
			again := ParseState(s.Bytes())
			if got, want := again.Encoding(), ParseState(data).Encoding(); got != want {
				t.Errorf("encoding: got %s, want %s", got, want)
			}
			for k, want := range map[string]string{"status": "running", "phase": "build «ok»", "return_next_action": "日本語"} {
				if got, _ := again.Get(k); got != want {
					t.Errorf("%s: got %q, want %q", k, got, want)
				}
			}
		})
	}
}

// countingWriter counts the writes it is given.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// WriteTo sends the stretches a file kept from its reading straight out,
// and writes the same bytes as Bytes, whatever the edits, endings, byte
// order mark or missing final newline.
func TestWriteToUneditedRuns(t *testing.T) {
	var blocks strings.Builder
	for i := 1; i <= 2000; i++ { // 170 KB: more than one piece of the buffer
		fmt.Fprintf(&blocks, "## q-2026-11-29-%03d\nstatus: open\ngate: blocking\nquestion: Which one, %d?\noptions: |\n  1. This\n  2. That\n\n", i, i)
	}
	edits := map[string]func(q *Questions) error{
		"none": func(*Questions) error { return nil },
		"set": func(q *Questions) error {
			return q.Set("q-2026-11-29-150", KV{Key: "status", Value: "answered"}, KV{Key: "answer", Value: "This"})
		},
		"append": func(q *Questions) error { q.Append("q-2026-11-29-2001", KV{Key: "status", Value: "open"}); return nil },
		"rename": func(q *Questions) error { return q.Rename(q.Find("q-2026-11-29-002").Line(), "q-2026-11-29-999") },
		"set first and last": func(q *Questions) error {
			if err := q.Set("q-2026-11-29-001", KV{Key: "status", Value: "dropped"}); err != nil {
				return err
			}
			return q.Set("q-2026-11-29-2000", KV{Key: "status", Value: "dropped"})
		},
	}
	for _, form := range []struct{ name, bom, text string }{
		{"lf", "", "# Questions\n\n" + blocks.String()},
		{"crlf", "", strings.ReplaceAll("# Questions\n\n"+blocks.String(), "\n", "\r\n")},
		{"bom, no final newline", utf8BOM, "# Questions\n\n" + strings.TrimSuffix(blocks.String(), "\n\n")},
	} {
		for name, edit := range edits {
			q := ParseQuestions([]byte(form.bom + form.text))
			if err := edit(q); err != nil {
				t.Fatalf("%s, %s: %v", form.name, name, err)
			}
			var w countingWriter
			if n, err := q.WriteTo(&w); err != nil || n != int64(w.Len()) || !bytes.Equal(w.Bytes(), q.Bytes()) {
				t.Fatalf("%s, %s: WriteTo wrote %d bytes (%v), not what Bytes gives", form.name, name, n, err)
			}
			want := 5 // the stretch before an edit, the edit, the stretch after
			if name == "none" {
				want = 1 + len(form.bom) // the byte order mark goes through the buffer
				want = min(want, 2)
			}
			if w.writes > want {
				t.Errorf("%s, %s: %d writes for %d bytes, want at most %d: the unedited stretches written whole", form.name, name, w.writes, w.Len(), want)
			}
		}
	}
}
