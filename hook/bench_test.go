package hook

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// BenchmarkHandle is the hook's own work per event, without the process
// start a harness adds (cmd/internal/app's BenchmarkHook has that), on a
// workspace of 1,000 questions with one awaited:
//
//	go test ./hook -run '^$' -bench Handle
func BenchmarkHandle(b *testing.B) {
	dir := b.TempDir()
	ws, err := mdstore.Init(mdstore.Locator{Dir: dir}, "pay", clock)
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.Open(ws, func() time.Time { return clock }, time.Minute, "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range 999 {
		yes := "Yes"
		if _, err := eng.Raise(ctx, engine.RaiseRequest{Gate: "advisory", Question: fmt.Sprintf("Question %d?", i),
			Options: []string{"Yes", "No"}, Answered: &yes}, "alice"); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := eng.Raise(ctx, engine.RaiseRequest{Gate: "blocking", Question: questionText, Options: []string{"A", "B"}}, ""); err != nil {
		b.Fatal(err)
	}
	env := testEnv(dir)
	for _, name := range []string{"pre-write-src.json", "pre-read.json", "prompt-other.json"} {
		in := fixture(b, "claude-code", name, dir)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if out := Handle(ctx, claude{}, in, env); out.Exit != 0 {
					b.Fatal(out.Stderr)
				}
			}
		})
	}
}
