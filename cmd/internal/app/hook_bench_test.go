package app

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// BenchmarkHook is the latency of one hook call as a harness pays it: the
// engine started as its own process, one event on stdin, on a workspace of
// 1,000 questions with one awaited (docs/harness.md has the figures):
//
//	go test ./cmd/internal/app -run '^$' -bench BenchmarkHook -benchtime 200x
func BenchmarkHook(b *testing.B) {
	dir := b.TempDir()
	if r := runEngine(dir, "init", "pay"); r.code != 0 {
		b.Fatalf("init: %s", r.stderr)
	}
	ws, err := mdstore.Find(mdstore.Locator{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := engine.Open(ws, time.Now, time.Minute, "")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for i := range 999 {
		answer := "Yes"
		if _, err := eng.Raise(ctx, engine.RaiseRequest{Gate: "advisory", Question: fmt.Sprintf("Question %d?", i),
			Options: []string{"Yes", "No"}, Answered: &answer}, "alice"); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := eng.Raise(ctx, engine.RaiseRequest{Gate: "blocking", Question: "Which rounding?",
		Options: []string{"Banker's", "Half up"}}, ""); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, event string }{
		{"PreToolUse-deny", `{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a.go"}}`},
		{"PreToolUse-read", `{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a.go"}}`},
		{"UserPromptSubmit-talk", `{"session_id":"s","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"why?"}`},
	} {
		in := []byte(fmt.Sprintf(tc.event, filepath.Clean(dir)))
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				cmd := engineCmd(dir, "hook")
				cmd.Stdin = bytes.NewReader(in)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
