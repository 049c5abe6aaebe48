package mdstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// benchSizes are the workspace sizes of docs/performance.md, in questions.
var benchSizes = []int{10, 1000, 10000}

// benchQuestions is a questions.md of n engine-written blocks: all answered
// but the last, which is open.
func benchQuestions(n int) []byte {
	var b strings.Builder
	b.WriteString("# Questions\n")
	for i := 1; i <= n; i++ {
		status := "answered"
		if i == n {
			status = "open"
		}
		fmt.Fprintf(&b, "\n## q-2026-11-29-%03d\nstatus: %s\nslice: %d — module\ngate: blocking\n", i, status, i%40+1)
		fmt.Fprintf(&b, "question: Which retry policy for service %d?\noptions: |\n", i)
		b.WriteString("  1. Exponential backoff (Recommended) — logic: bounded load · business: fewer pages\n")
		b.WriteString("  2. Fixed delay — simpler\n  3. Something else — I'll describe it\n")
		b.WriteString("proposed: Exponential backoff\nsla: 15m\nraised_at: 2026-11-29T14:02:11Z\n")
		if i < n {
			b.WriteString("answered_at: 2026-11-29T14:10:00Z\nanswer: Exponential backoff\nchoice: 1\nanswered_by: human\n")
		}
	}
	return []byte(b.String())
}

func BenchmarkParseQuestions(b *testing.B) {
	for _, n := range benchSizes {
		src := benchQuestions(n)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if qs := mdstore.ParseQuestions(src); len(qs.Blocks()) != n {
					b.Fatalf("%d blocks, want %d", len(qs.Blocks()), n)
				}
			}
		})
	}
}

// BenchmarkResolveEdit is the questions.md part of one `state resolve`:
// parse, record the answer in the last block, render.
func BenchmarkResolveEdit(b *testing.B) {
	for _, n := range benchSizes {
		src := benchQuestions(n)
		id := fmt.Sprintf("q-2026-11-29-%03d", n)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				qs := mdstore.ParseQuestions(src)
				err := qs.Set(id, mdstore.KV{Key: "status", Value: "answered"}, mdstore.KV{Key: "answered_at", Value: "2026-11-29T15:00:00Z"},
					mdstore.KV{Key: "answer", Value: "Fixed delay"}, mdstore.KV{Key: "choice", Value: "2"}, mdstore.KV{Key: "answered_by", Value: "human"})
				if err != nil {
					b.Fatal(err)
				}
				if len(qs.Bytes()) <= len(src) {
					b.Fatal("the edit did not grow the file")
				}
			}
		})
	}
}

// BenchmarkAppend is the questions.md part of one raise: parse, append a
// block, render.
func BenchmarkAppend(b *testing.B) {
	for _, n := range benchSizes {
		src := benchQuestions(n)
		id := fmt.Sprintf("q-2026-11-29-%03d", n+1)
		b.Run(fmt.Sprintf("questions=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				qs := mdstore.ParseQuestions(src)
				qs.Append(id, mdstore.KV{Key: "status", Value: "open"}, mdstore.KV{Key: "gate", Value: "advisory"},
					mdstore.KV{Key: "question", Value: "Line one\nline two"})
				if qs.Find(id) == nil {
					b.Fatal("appended block not found")
				}
				_ = qs.Bytes()
			}
		})
	}
}

// BenchmarkDecisionAppend is decisions.md's part of a resolution.
func BenchmarkDecisionAppend(b *testing.B) {
	for _, n := range benchSizes {
		src := benchQuestions(n) // a log of the same shape and size
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				out := mdstore.AppendRecord(src, "q-2026-11-29-999999 answered", mdstore.KV{Key: "answer", Value: "yes"})
				if len(out) <= len(src) {
					b.Fatal("nothing appended")
				}
			}
		})
	}
}
