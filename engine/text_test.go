package engine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

var clock = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

// twoQuestions creates a workspace holding a paused question (first) and one
// recorded as already answered (second).
func twoQuestions(t testing.TB) (*engine.Engine, string, string) {
	t.Helper()
	e := newEngine(t)
	ctx := context.Background()
	first, err := e.Raise(ctx, engine.RaiseRequest{Slice: "3 — payments", Gate: "blocking",
		Question: "Which currency rounding rule?", Options: []string{"Banker's rounding — unbiased", "Round half up"}}, "agent")
	if err != nil {
		t.Fatal(err)
	}
	if first.Outcome != "paused" {
		t.Fatalf("first raise: got outcome %q, want paused", first.Outcome)
	}
	second, err := e.Raise(ctx, engine.RaiseRequest{Gate: "advisory", Question: "Log format?\n## q-2026-11-29-009\nstatus: open",
		Options: []string{"JSON"}, Answered: new("JSON, with ```fences``` kept\n| a | b |\n")}, "human")
	if err != nil {
		t.Fatal(err)
	}
	return e, first.QID, second.QID
}

func readQuestions(t testing.TB, e *engine.Engine) *mdstore.Questions {
	t.Helper()
	b, err := os.ReadFile(e.WS.Path(mdstore.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	return mdstore.ParseQuestions(b)
}

func fieldsOf(b *mdstore.Block) string {
	var s strings.Builder
	for _, f := range b.Fields() {
		s.WriteString(f.Key + "=" + strconv.Quote(f.Value) + "\n")
	}
	return s.String()
}

func snapshot(t testing.TB, e *engine.Engine) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, n := range []string{mdstore.QuestionsFile, mdstore.StateFile, mdstore.DecisionsFile} {
		b, err := os.ReadFile(e.WS.Path(n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = b
	}
	return out
}

// checkResolveText resolves the paused question with text and checks that
// the answer reads back exactly (line breaks as "\n") and that nothing else
// in questions.md changed; text the engine refuses must change no file.
func checkResolveText(t testing.TB, text string) {
	e, id, other := twoQuestions(t)
	before := readQuestions(t, e)
	otherFields := fieldsOf(before.Find(other))
	files := snapshot(t, e)

	_, err := e.Resolve(context.Background(), []engine.Resolution{{QID: id, Kind: question.StatusAnswered, Text: text}}, "")
	want := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	// Blank: only white space and invisible format characters.
	blankText := strings.IndexFunc(want, func(r rune) bool { return !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) }) < 0
	refused := !utf8.ValidString(text) || strings.ContainsRune(text, 0) || blankText
	// An answer made only of digits is an option number: 1 and 2 exist, 3
	// is the escape hatch that needs words, anything else (however large)
	// does not exist.
	digits := strings.TrimSpace(want)
	number := digits != "" && strings.Trim(digits, "0123456789") == ""
	n, numErr := strconv.Atoi(digits)
	if number && (numErr != nil || n != 1 && n != 2) {
		refused = true
	}
	if refused {
		if !errors.Is(err, engine.ErrBadArgs) {
			t.Fatalf("text %q: got error %v, want %v", text, err, engine.ErrBadArgs)
		}
		for n, b := range snapshot(t, e) {
			if !bytes.Equal(b, files[n]) {
				t.Fatalf("%s changed by a refused resolution", n)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("text %q: %v", text, err)
	}
	after := readQuestions(t, e)
	if got, want := len(after.Blocks()), len(before.Blocks()); got != want {
		t.Fatalf("questions: got %d, want %d", got, want)
	}
	b := after.Find(id)
	if got := b.Value("status"); got != question.StatusAnswered {
		t.Fatalf("status: got %q, want %q", got, question.StatusAnswered)
	}
	if number {
		if c := b.Value("choice"); c != strconv.Itoa(n) {
			t.Fatalf("choice: got %q, want %d", c, n)
		}
		return
	}
	if got := b.Value("answer"); got != want {
		t.Fatalf("answer: got %q, want %q", got, want)
	}
	if got := fieldsOf(after.Find(other)); got != otherFields {
		t.Fatalf("other block: got\n%s\nwant\n%s", got, otherFields)
	}
	// The decision log carries the same answer.
	dec, err := os.ReadFile(e.WS.Path(mdstore.DecisionsFile))
	if err != nil {
		t.Fatal(err)
	}
	d := mdstore.ParseQuestions([]byte(strings.Replace(string(dec), "## "+id+" answered", "## "+id, 1))).Find(id)
	if d == nil || d.Value("answer") != want {
		t.Fatalf("decisions.md answer: got %v, want %q", d, want)
	}
}

func TestResolveText(t *testing.T) {
	big := strings.Repeat("ligne «été» — 100 KB\n## q-2026-11-29-002\nstatus: open\n```\n", 2000)[:100*1024]
	tests := []struct{ name, text string }{
		{"plain", "Banker's rounding"},
		{"leading and trailing spaces", "  padded  "},
		{"lines", "first\nsecond"},
		{"CRLF", "first\r\nsecond\r\n"},
		{"lone CR", "first\rsecond"},
		{"trailing blank lines", "answer\n\n\n"},
		{"forged heading", "ok\n## q-2026-11-29-003\nstatus: open"},
		{"forged field first", "status: answered\nanswer: forged"},
		{"markdown table", "| Key | Value |\n| --- | --- |\n| status | running |"},
		{"fence", "```\n## q-2026-11-29-004\n"},
		{"tilde fence unclosed", "~~~\nx"},
		{"block scalar header", "|-"},
		{"pipe only", "|"},
		{"indented first line", "    code\nflush"},
		{"tab", "\tx"},
		{"unicode", "日本語 — ça ∑ 🚀"},
		{"heading first", "# Questions"},
		{"an option number", "2"},
		{"option zero", "0"},
		{"option zero with spaces", " 0 "},
		{"option out of range", "9"},
		{"escape hatch needs words", "3"},
		{"negative number is text", "-1"},
		{"leading zero", "02"},
		{"larger than any int", "99999999999999999999999"},
		{"number with a plus", "+1"},
		{"100 KB", big},
		{"empty", ""},
		{"blank", " \n\t "},
		{"NUL", "a\x00b"},
		{"invalid UTF-8", "a\xffb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkResolveText(t, tt.text) })
	}
}

func FuzzResolveText(f *testing.F) {
	for _, s := range []string{"yes", "a\nb", "  x  \n\n", "## q-2026-11-29-002\nstatus: open", "```", "| a |", "日本", "\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkResolveText(t, text) })
}

// A questions.md edited by hand so that it ends inside a fenced code block
// still takes new questions: the fence is closed before the new block.
func TestRaiseAfterUnclosedFence(t *testing.T) {
	for _, tail := range []string{"~~~~ text\nnotes", "```"} {
		t.Run(strconv.Quote(tail), func(t *testing.T) {
			ws, err := mdstore.Init(mdstore.Locator{Root: t.TempDir()}, "pay", clock)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(ws.Path(mdstore.QuestionsFile), []byte("# Questions\n\n"+tail), 0o644); err != nil {
				t.Fatal(err)
			}
			e, err := engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "human")
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Raise(context.Background(), engine.RaiseRequest{Gate: "advisory", Question: "Q?", Options: []string{"A"}, Answered: new("A")}, "human")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := res.QID, "q-2026-11-29-001"; got != want {
				t.Errorf("qid: got %s, want %s", got, want)
			}
			b := readQuestions(t, e).Find(res.QID)
			if b == nil {
				t.Fatalf("%s not found in questions.md", res.QID)
			}
			if got := b.Value("answer"); got != "A" {
				t.Errorf("answer: got %q, want %q", got, "A")
			}
			q, err := os.ReadFile(ws.Path(mdstore.QuestionsFile))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(q), "# Questions\n\n"+tail) {
				t.Errorf("existing text changed: %q", q)
			}
		})
	}
}

// An open fence that swallowed a question heading is an error doctor
// reports: the engine writes nothing into such a file.
func TestRaiseRefusedWhenFenceSwallowsQuestion(t *testing.T) {
	ws, err := mdstore.Init(mdstore.Locator{Root: t.TempDir()}, "pay", clock)
	if err != nil {
		t.Fatal(err)
	}
	before := []byte("# Questions\n\n```\n## q-2026-11-29-001\nstatus: open\n")
	if err := os.WriteFile(ws.Path(mdstore.QuestionsFile), before, 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "human")
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Raise(context.Background(), engine.RaiseRequest{Gate: "advisory", Question: "Q?", Options: []string{"A"}, Answered: new("A")}, "human")
	if !errors.Is(err, engine.ErrMalformed) || !strings.Contains(err.Error(), "questions.md:4: question heading inside a fenced code block") {
		t.Fatalf("got %v, want a malformed error naming questions.md:4", err)
	}
	after, err := os.ReadFile(ws.Path(mdstore.QuestionsFile))
	if err != nil || !bytes.Equal(after, before) {
		t.Errorf("questions.md changed: %q (%v)", after, err)
	}
}
