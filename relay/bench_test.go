package relay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/relay/standin"
)

// signalWriter passes each write on and signals the ones holding a word.
type signalWriter struct {
	w    *syncBuffer
	word string
	seen chan struct{}
}

func (s signalWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), s.word) {
		s.seen <- struct{}{}
	}
	return s.w.Write(p)
}

// BenchmarkTapToAnswer measures the time from a tap on ntfy (the http
// action's request to the reply topic) to the answer recorded in the
// workspace (engine.Resolve committed, the relay's log line written).
func BenchmarkTapToAnswer(b *testing.B) {
	p := newProject(b)
	srv := standin.NewNtfy("")
	defer srv.Close()
	seen := make(chan struct{}, 1)
	r := New(Config{Devrites: p.devrites, Open: p.open, Channels: []Channel{&Ntfy{Server: srv.URL, Topic: "team", ReplyTopic: "team-replies"}},
		Key: p.key, Now: func() time.Time { return clock }, Log: signalWriter{p.log, " answered (option 1)", seen}, Every: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p.raise("Which rounding?")
		msgs, err := srv.WaitMessages("team", 2*i+1, waitFor)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := srv.Press(msgs[2*i], 0); err != nil {
			b.Fatal(err)
		}
		<-seen
		b.StopTimer()
		if _, err := srv.WaitMessages("team", 2*i+2, waitFor); err != nil { // the update, before the next raise
			b.Fatal(err)
		}
	}
}

// BenchmarkResolveAlone is the same answer recorded by engine.Resolve
// without the relay: what BenchmarkTapToAnswer adds to it is the relay's.
func BenchmarkResolveAlone(b *testing.B) {
	p := newProject(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		id := p.raise("Which rounding?")
		b.StartTimer()
		if _, err := p.engine().Resolve(context.Background(), []engine.Resolution{{QID: id, Kind: question.StatusAnswered, Text: "1"}}, "ntfy"); err != nil {
			b.Fatal(err)
		}
	}
}
