package relay

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/testhome"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/relay/standin"
)

// waitFor bounds every wait of these tests.
const waitFor = 10 * time.Second

var clock = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

// project is a project with one workspace, pay, for a relay to serve.
type project struct {
	t        testing.TB
	devrites string
	ws       *mdstore.Workspace
	key      caplink.Key
	log      *syncBuffer
}

func newProject(t testing.TB) *project {
	t.Helper()
	dir := t.TempDir()
	ws, err := mdstore.Init(mdstore.Locator{Root: dir}, "pay", clock)
	if err != nil {
		t.Fatal(err)
	}
	key, err := caplink.Ensure(ws.Devrites)
	if err != nil {
		t.Fatal(err)
	}
	return &project{t: t, devrites: ws.Devrites, ws: ws, key: key, log: &syncBuffer{}}
}

func (p *project) open(ws *mdstore.Workspace) (*engine.Engine, error) {
	return engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "")
}

func (p *project) engine() *engine.Engine {
	e, err := p.open(p.ws)
	if err != nil {
		p.t.Fatal(err)
	}
	return e
}

// raise raises a pausing blocking question with two options and the
// escape hatch.
func (p *project) raise(question string) string {
	p.t.Helper()
	res, err := p.engine().Raise(context.Background(), engine.RaiseRequest{Gate: "blocking", Question: question,
		Options: []string{"Banker's rounding — unbiased", "Round half up"}}, "")
	if err != nil {
		p.t.Fatal(err)
	}
	return res.QID
}

func (p *project) question(id string) question.Question {
	p.t.Helper()
	q, err := p.engine().Get(id)
	if err != nil {
		p.t.Fatal(err)
	}
	return q
}

// waitStatus waits for question id to leave "open".
func (p *project) waitFinal(id string) question.Question {
	p.t.Helper()
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		if q := p.question(id); q.Status != question.StatusOpen {
			return q
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.t.Fatalf("%s still open after %s; log:\n%s", id, waitFor, p.log)
	return question.Question{}
}

// waitLog waits for the relay's log to hold want.
func (p *project) waitLog(want string) {
	p.t.Helper()
	deadline := time.Now().Add(waitFor)
	for time.Now().Before(deadline) {
		if strings.Contains(p.log.String(), want) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.t.Fatalf("log has no %q after %s:\n%s", want, waitFor, p.log)
}

func (p *project) relay(chs ...Channel) *Relay {
	return New(Config{Devrites: p.devrites, Open: p.open, Channels: chs, Key: p.key,
		Now: func() time.Time { return clock }, Log: p.log, Every: 20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
}

// run runs r until the test ends.
func run(t *testing.T, r *Relay) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(waitFor):
			t.Error("the relay did not stop")
		}
	})
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newNtfy(t *testing.T, srv *standin.Ntfy) *Ntfy {
	t.Cleanup(srv.Close)
	return &Ntfy{Server: srv.URL, Topic: "team", ReplyTopic: "team-replies", Token: srv.Token}
}

// ntfyPause raises a pause, runs a relay to an ntfy stand-in that wants
// token, and returns the message the relay published.
func ntfyPause(t *testing.T, token string) (*project, string, *standin.Ntfy, standin.NtfyMessage) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	srv := standin.NewNtfy(token)
	run(t, p.relay(newNtfy(t, srv)))
	msgs, err := srv.WaitMessages("team", 1, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	return p, id, srv, msgs[0]
}

func TestNtfyTapAnswers(t *testing.T) {
	p, id, srv, m := ntfyPause(t, "tk_secret")
	if !strings.Contains(m.Message, "Which rounding?") || !strings.Contains(m.Message, "3. Something else — I'll describe it") {
		t.Errorf("message text:\n%s", m.Message)
	}
	var labels []string
	for _, a := range m.Actions {
		labels = append(labels, a.Label)
	}
	if got, want := strings.Join(labels, " | "), "1. Banker's rounding | 2. Round half up | Reject"; got != want {
		t.Errorf("buttons: got %q, want %q", got, want)
	}
	if err := srv.Press(m, 1); err != nil {
		t.Fatal(err)
	}
	q := p.waitFinal(id)
	if q.Status != question.StatusAnswered || q.Choice == nil || *q.Choice != 2 || q.AnsweredBy != "ntfy" || *q.Answer != "Round half up" {
		t.Errorf("got %s choice %v by %s, want answered, option 2, by ntfy", q.Status, q.Choice, q.AnsweredBy)
	}
	// The copy is replaced: the same sequence id, the outcome, no buttons.
	msgs, err := srv.WaitMessages("team", 2, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	up := msgs[1]
	if up.SequenceID != m.ID || up.Message != "Answered by ntfy: Round half up (option 2)" || len(up.Actions) != 0 {
		t.Errorf("update: sequence %q (want %q), %q, %d buttons", up.SequenceID, m.ID, up.Message, len(up.Actions))
	}
	p.waitLog("pay/" + id + " answered (option 2): Round half up by ntfy on ntfy team")
}

func TestNtfyRefusals(t *testing.T) {
	p, id, srv, m := ntfyPause(t, "")
	token := m.Actions[0].Body

	// A token of another shape, one altered, and one for another
	// workspace's key are refused, and nothing is recorded.
	other := newProject(t)
	alien := tapToken(other.key, other.ws.Project, "pay", id, p.question(id).Fingerprint, "1", clock.Add(time.Hour))
	for _, forged := range []string{"yes please", strings.Replace(token, ":1:", ":2:", 1), alien} {
		if err := srv.Publish("team-replies", forged); err != nil {
			t.Fatal(err)
		}
	}
	p.waitLog("refused a tap by ntfy on ntfy team: not a button of this relay (forged or altered)")
	deadline := time.Now().Add(waitFor)
	for strings.Count(p.log.String(), "forged or altered") < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := strings.Count(p.log.String(), "forged or altered"); n != 3 {
		t.Fatalf("%d refusals logged, want 3:\n%s", n, p.log)
	}
	if q := p.question(id); q.Status != question.StatusOpen {
		t.Fatalf("a forged tap changed %s: %s", id, q.Status)
	}

	// The first tap wins; a second, of another option, is refused.
	if err := srv.Press(m, 2); err != nil { // Reject
		t.Fatal(err)
	}
	q := p.waitFinal(id)
	if q.Status != question.StatusRejected || q.AnsweredBy != "ntfy" || *q.Answer != "rejected with one tap on ntfy team, without words" {
		t.Errorf("got %s by %s: %v", q.Status, q.AnsweredBy, q.Answer)
	}
	if err := srv.Press(m, 0); err != nil {
		t.Fatal(err)
	}
	p.waitLog("refused a tap by ntfy on ntfy team: " + id + " was already rejected by ntfy: rejected with one tap on ntfy team, without words")
	if q := p.question(id); q.Status != question.StatusRejected {
		t.Errorf("the second tap changed %s to %s", id, q.Status)
	}
}

func TestExpiredTapRefused(t *testing.T) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	r := p.relay()
	expired := tapToken(p.key, p.ws.Project, "pay", id, p.question(id).Fingerprint, "1", clock.Add(-time.Second))
	var told string
	r.answer(context.Background(), Tap{Channel: "test", Token: expired, By: "tester", Allowed: true,
		Reply: func(_ context.Context, s string) { told = s }})
	if want := "Not recorded: the buttons of " + id + " expired at 2026-11-29T14:02:10Z"; told != want {
		t.Errorf("told %q, want %q", told, want)
	}
	if q := p.question(id); q.Status != question.StatusOpen {
		t.Errorf("an expired tap changed %s to %s", id, q.Status)
	}
}

// A dead channel and a slow one do not keep a working one from sending
// and answering.
func TestDeadAndSlowChannels(t *testing.T) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	dead, slow, good := standin.NewNtfy(""), standin.NewNtfy(""), standin.NewNtfy("")
	dead.Down.Store(true)
	slow.Delay.Store(int64(time.Hour))
	deadCh, slowCh, goodCh := newNtfy(t, dead), newNtfy(t, slow), newNtfy(t, good)
	deadCh.Topic, slowCh.Topic = "dead", "slow"
	slowCh.Client = &http.Client{Timeout: time.Second} // slower than its client waits
	run(t, p.relay(deadCh, slowCh, goodCh))
	msgs, err := good.WaitMessages("team", 1, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if err := good.Press(msgs[0], 0); err != nil {
		t.Fatal(err)
	}
	if q := p.waitFinal(id); q.Status != question.StatusAnswered {
		t.Errorf("got %s", q.Status)
	}
	p.waitLog("warning: ntfy dead: sending pay/" + id + ": ntfy answered 503 Service Unavailable")
	p.waitLog("; trying again in ")
	p.waitLog("warning: ntfy slow: sending pay/" + id + ": ")
}

// A relay started again does not send a question it sent before.
func TestRestartDoesNotSendAgain(t *testing.T) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	srv := standin.NewNtfy("")
	ch := newNtfy(t, srv)
	// A workspace made before the relay: its .gitignore lacks relay.json.
	gitignore := filepath.Join(p.ws.Dir, ".gitignore")
	if err := os.WriteFile(gitignore, []byte(".lock\nnotify.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.relay(ch).Once(context.Background())
	p.relay(ch).Once(context.Background())
	if n := len(srv.Messages("team")); n != 1 {
		t.Fatalf("%d messages after two passes, want 1", n)
	}
	b, err := os.ReadFile(filepath.Join(p.ws.Dir, RecordFile))
	if err != nil || !strings.Contains(string(b), `"qid": "`+id+`"`) {
		t.Fatalf("relay.json: %s %v", b, err)
	}
	if gi, _ := os.ReadFile(gitignore); string(gi) != ".lock\nnotify.log\n# what devrites-engine relay sent, on this machine\n"+RecordFile+"\n" {
		t.Errorf(".gitignore does not list %s:\n%s", RecordFile, gi)
	}
	// Answered elsewhere: the next pass updates the copy and forgets it.
	if _, err := p.engine().Resolve(context.Background(), []engine.Resolution{{QID: id, Kind: question.StatusAnswered, Text: "1"}}, "ann"); err != nil {
		t.Fatal(err)
	}
	p.relay(ch).Once(context.Background())
	msgs := srv.Messages("team")
	if len(msgs) != 2 || msgs[1].Message != "Answered by ann: Banker's rounding (option 1)" {
		t.Fatalf("messages: %+v", msgs)
	}
	if b, _ := os.ReadFile(filepath.Join(p.ws.Dir, RecordFile)); strings.Contains(string(b), id) {
		t.Errorf("relay.json still holds %s:\n%s", id, b)
	}
	// A relay.json that does not parse: nothing of the workspace is sent
	// (it might be sent twice), and the log says how to mend it.
	p.raise("Which currency?")
	if err := os.WriteFile(filepath.Join(p.ws.Dir, RecordFile), []byte("{torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.relay(ch).Once(context.Background())
	if n := len(srv.Messages("team")); n != 2 {
		t.Errorf("%d messages with a torn relay.json, want still 2", n)
	}
	p.waitLog("relay.json: does not parse: ")
	p.waitLog("; delete it (every open question is sent again)")
}

func TestTokenShape(t *testing.T) {
	k := caplink.Key(bytes.Repeat([]byte{7}, 32))
	const slug = "a-very-long-slug-of-sixty-four-characters-is-not-in-the-token-00"
	fp := strings.Repeat("ab", 32)
	tok := tapToken(k, "/p", slug, "q-2026-11-29-999999", fp, RejectChoice, clock)
	if len(tok) > 64 {
		t.Errorf("token %q is %d bytes; Telegram takes 64", tok, len(tok))
	}
	tk, ok := parseToken(tok)
	if !ok || !tk.validFor(k, "/p", slug, fp) {
		t.Fatalf("token %q does not check", tok)
	}
	if tk.validFor(k, "/p", "other", fp) {
		t.Error("token valid for slug other")
	}
	if tk.validFor(k, "/q", slug, fp) {
		t.Error("token valid for another project")
	}
	// The token binds the whole fingerprint: another question's, even
	// one that starts alike, does not check.
	for _, other := range []string{"abababab" + strings.Repeat("cd", 28), strings.Repeat("cd", 32)} {
		if tk.validFor(k, "/p", slug, other) {
			t.Errorf("token valid for fingerprint %s", other)
		}
	}
}

// A tap's answer fires the notify hook as state resolve does, and what
// the hook's failure says is in the relay's log, not lost.
func TestTapLogsHookWarnings(t *testing.T) {
	home := t.TempDir() // the trust store of this test, not the person's
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	p, id, srv, m := ntfyPause(t, "")
	conf := filepath.Join(p.devrites, "notify.yaml")
	if err := os.WriteFile(conf, []byte("notify: 'exit 3'\nnotify_on: [resolved]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	testhome.Trust(t, conf)
	if err := srv.Press(m, 0); err != nil {
		t.Fatal(err)
	}
	if q := p.waitFinal(id); q.Status != question.StatusAnswered {
		t.Fatalf("got %s, want answered", q.Status)
	}
	p.waitLog("warning: pay/" + id + ": ")
}
