package mdstore

import (
	"bytes"
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
