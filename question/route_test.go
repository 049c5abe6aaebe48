package question

import (
	"reflect"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
)

func TestParseStrategy(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int
		bad      bool
	}{
		{"", "single", 0, false},
		{"Collect-All", "collect-all", 0, false},
		{" first-response-wins ", "first-response-wins", 0, false},
		{"quorum:2", "quorum:2", 2, false},
		{"QUORUM : 03", "quorum:3", 3, false},
		{"quorum:99999999999999999999999", "quorum:99999999999999999999999", 1001, false},
		{"quorum", "", 0, true},
		{"quorum:-1", "", 0, true},
		{"quorum:two", "", 0, true},
		{"majority", "", 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			s, err := ParseStrategy(tc.in)
			if tc.bad {
				if err == nil {
					t.Fatalf("got %v, want an error", s)
				}
				return
			}
			if err != nil || s.String() != tc.want || s.n != tc.n {
				t.Fatalf("got %v (n %d), %v; want %s (n %d)", s, s.n, err, tc.want, tc.n)
			}
		})
	}
}

// r is a response for the tables below: "1" picks option 1, "!text"
// rejects, "-text" drops, anything else is text.
func r(by, what string) Response {
	switch {
	case what == "1" || what == "2" || what == "3":
		return Response{By: by, Status: StatusAnswered, Choice: int(what[0] - '0'), Answer: "opt" + what}
	case strings.HasPrefix(what, "!"):
		return Response{By: by, Status: StatusRejected, Answer: what[1:]}
	case strings.HasPrefix(what, "-"):
		return Response{By: by, Status: StatusDropped, Answer: what[1:]}
	}
	return Response{By: by, Status: StatusAnswered, Answer: what}
}

func TestOutcome(t *testing.T) {
	opts := []string{"Opt1 (Recommended) — why", "Opt2", EscapeHatch}
	for _, tc := range []struct {
		name      string
		Route     string
		Strategy  string
		Responses []Response
		want      Verdict
		progress  string
	}{
		{"single waits", "alice, bob", "single", nil,
			Verdict{Need: "the first response decides"}, "0 of 2 responded; waiting for alice, bob; the first response decides"},
		{"single first", "alice, bob", "single", []Response{r("bob", "2")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 2, By: []string{"bob"}}, "1 of 2 responded"},
		{"first-response-wins reject", "alice, bob", "first-response-wins", []Response{r("alice", "!no")},
			Verdict{Final: true, Status: StatusRejected, Text: "no", By: []string{"alice"}}, "1 of 2 responded"},
		{"collect-all waits", "alice, bob, carol", "collect-all", []Response{r("alice", "1"), r("carol", "!no")},
			Verdict{}, "2 of 3 responded; waiting for bob"},
		{"collect-all majority", "alice, bob, carol", "collect-all", []Response{r("alice", "1"), r("bob", "2"), r("carol", "opt2")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 2, By: []string{"bob", "carol"}}, "3 of 3 responded"},
		{"collect-all tie to the lower option", "a, b", "collect-all", []Response{r("a", "2"), r("b", "1")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 1, By: []string{"b"}}, "2 of 2 responded"},
		{"collect-all option beats text in a tie", "a, b", "collect-all", []Response{r("a", "my own"), r("b", "2")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 2, By: []string{"b"}}, "2 of 2 responded"},
		{"collect-all texts tie to the earlier", "a, b", "collect-all", []Response{r("a", "x"), r("b", "y")},
			Verdict{Final: true, Status: StatusAnswered, Text: "x", By: []string{"a"}}, "2 of 2 responded"},
		{"collect-all identical texts", "a, b, c", "collect-all", []Response{r("a", "same"), r("b", "1"), r("c", "same")},
			Verdict{Final: true, Status: StatusAnswered, Text: "same", By: []string{"a", "c"}}, "3 of 3 responded"},
		{"collect-all texts differ in case", "a, b, c", "collect-all", []Response{r("a", "same"), r("b", "1"), r("c", "Same")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 1, By: []string{"b"}}, "3 of 3 responded"},
		{"collect-all reject", "a, b, c", "collect-all", []Response{r("a", "!too risky\nsee the ADR"), r("b", "1"), r("c", "!no")},
			Verdict{Final: true, Status: StatusRejected, Text: "a: too risky\na: see the ADR\nc: no", By: []string{"a", "c"}}, "3 of 3 responded"},
		{"collect-all drops abstain", "a, b", "collect-all", []Response{r("a", "-later"), r("b", "2")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 2, By: []string{"b"}}, "2 of 2 responded"},
		{"collect-all all dropped", "a, b", "collect-all", []Response{r("a", "-later"), r("b", "-never")},
			Verdict{Final: true, Status: StatusDropped, Text: "a: later\nb: never", By: []string{"a", "b"}}, "2 of 2 responded"},
		{"collect-all owner", "alice, owner", "collect-all", []Response{r("dana", "1")},
			Verdict{}, "1 of 2 responded; waiting for alice"},
		{"collect-all two unnamed for one owner", "alice, owner", "collect-all", []Response{r("dana", "1"), r("erin", "2")},
			Verdict{}, "1 of 2 responded; waiting for alice"},
		{"quorum reached", "a, b, c", "quorum:2", []Response{r("a", "1"), r("b", "2"), r("c", "1")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 1, By: []string{"a", "c"}}, "3 of 3 responded"},
		{"quorum reached early", "a, b, c", "quorum:2", []Response{r("a", "2"), r("b", "opt2")},
			Verdict{Final: true, Status: StatusAnswered, Choice: 2, By: []string{"a", "b"}}, "2 of 3 responded"},
		{"quorum still reachable", "a, b, c", "quorum:2", []Response{r("a", "1"), r("b", "!no")},
			Verdict{Need: "quorum 2 needs one more agreeing answer"}, "2 of 3 responded; waiting for c; quorum 2 needs one more agreeing answer"},
		{"quorum unreachable", "a, b, c", "quorum:2", []Response{r("a", "1"), r("b", "2"), r("c", "-later")},
			Verdict{Final: true, Status: StatusRejected, Text: "a (answered option 1): opt1\nb (answered option 2): opt2\nc (dropped): later", By: []string{"a", "b", "c"}}, "3 of 3 responded"},
		{"quorum unreachable early", "a, b, c", "quorum:3", []Response{r("a", "!no")},
			Verdict{Final: true, Status: StatusRejected, Text: "a: no", By: []string{"a"}}, "1 of 3 responded"},
		{"quorum all dropped", "a, b", "quorum:2", []Response{r("a", "-later")},
			Verdict{Final: true, Status: StatusDropped, Text: "a: later", By: []string{"a"}}, "1 of 2 responded"},
		{"quorum any", "any, any", "quorum:2", []Response{r("x", "1")},
			Verdict{Need: "quorum 2 needs one more agreeing answer"}, "1 of 2 responded; waiting for any; quorum 2 needs one more agreeing answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := Question{Status: StatusOpen, Route: SplitNames(tc.Route), Strategy: tc.Strategy, Responses: tc.Responses, Options: opts}
			rt, err := q.Routing()
			if err != nil {
				t.Fatal(err)
			}
			got := rt.Outcome()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if p, _ := rt.progress(!got.Final); p != tc.progress {
				t.Errorf("progress: got %q, want %q", p, tc.progress)
			}
		})
	}
}

func TestResponder(t *testing.T) {
	rt := Routing{Route: []string{"Alice", "bob"}}
	for _, tc := range []struct {
		by, want string
		ok       bool
	}{{"alice", "Alice", true}, {"BOB", "bob", true}, {"carol", "", false}, {"owner", "", false}} {
		if who, ok := rt.Responder(tc.by); ok != tc.ok || ok && who != tc.want {
			t.Errorf("responder(%q): got %q, %v; want %q, %v", tc.by, who, ok, tc.want, tc.ok)
		}
	}
	rt.Route = append(rt.Route, "owner")
	if who, ok := rt.Responder("carol"); !ok || who != "carol" {
		t.Errorf("with owner: got %q, %v; want carol, true", who, ok)
	}
}

// FuzzResponses: responses written as the responses field and read back,
// from the bytes of a questions.md, are the responses given, whatever
// their names and texts hold; a field of a later version is kept.
func FuzzResponses(f *testing.F) {
	f.Add("alice", "Banker's rounding", "bob", "too risky\n- by: mallory\nstatus: answered", uint8(1))
	f.Add("a b", "  leading\n\n\ttab\n", "c", "## q-2026-11-29-002\n```\n", uint8(2))
	f.Add("x", "|2-", "y", "\n\n", uint8(0))
	f.Fuzz(func(t *testing.T, by1, text1, by2, text2 string, choice uint8) {
		clean := func(s string) string {
			s, _ = config.CleanText("", strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "?"))
			return s
		}
		by1, by2 = strings.TrimSpace(mdstore.OneLine(clean(by1))), strings.TrimSpace(mdstore.OneLine(clean(by2)))
		if by1 == "" || by2 == "" || strings.EqualFold(by1, by2) {
			return
		}
		rs := []Response{
			{By: by1, At: "2026-11-29T14:02:11Z", Status: StatusAnswered, Choice: int(choice % 4), Answer: clean(text1)},
			{By: by2, At: "2026-11-29T14:05:00Z", Status: StatusRejected, Answer: clean(text2),
				extra: []mdstore.KV{{Key: "note", Value: clean(text1)}}},
		}
		v := EncodeResponses(rs)
		qs := mdstore.ParseQuestions([]byte("# Questions\n\n## q-2026-11-29-001\nstatus: open\n"))
		if err := qs.Set("q-2026-11-29-001", mdstore.KV{Key: "responses", Value: v}, mdstore.KV{Key: "answer", Value: ""}); err != nil {
			t.Fatal(err)
		}
		back := mdstore.ParseQuestions(qs.Bytes())
		if n := len(back.Blocks()); n != 1 {
			t.Fatalf("%d blocks, want 1:\n%s", n, qs.Bytes())
		}
		got, err := ParseResponses(back.Find("q-2026-11-29-001").Value("responses"))
		if err != nil || !reflect.DeepEqual(got, rs) {
			t.Fatalf("got %#v, %v; want %#v\nfile:\n%s", got, err, rs, qs.Bytes())
		}
	})
}
