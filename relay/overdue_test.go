package relay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/testhome"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/relay/standin"
)

// The relay applies on_overdue in every workspace of the project: a
// validating pause nobody answers is accepted by expiry once expire_after
// has passed, and its copies say so (before that, it is not); a blocking
// pause in another workspace is reminded and escalated through the hook,
// and never accepted, though the file asks for it.
func TestRelayAcceptsByExpiry(t *testing.T) {
	home := t.TempDir() // the trust store of this test, not the person's
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	p := newProject(t)
	conf := filepath.Join(p.devrites, "notify.yaml")
	yaml := `notify: 'echo "$DEVRITES_EVENT $DEVRITES_SLUG $DEVRITES_ESCALATED_TO" >> hook.txt'
notify_on: [reminder]
on_overdue:
  validating: {expire_after: 8h, accept: recommended}
  blocking: {escalate_to: [oncall-lead], expire_after: 1h, accept: recommended}
`
	if err := os.WriteFile(conf, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	testhome.Trust(t, conf)
	res, err := p.engine().Raise(context.Background(), engine.RaiseRequest{Gate: "validating", Question: "Export format?",
		Options: []string{"CSV", "JSON"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := mdstore.Init(mdstore.Locator{Root: filepath.Dir(p.devrites)}, "ops", clock)
	if err != nil {
		t.Fatal(err)
	}
	opsEngine, err := p.open(ops)
	if err != nil {
		t.Fatal(err)
	}
	blocking, err := opsEngine.Raise(context.Background(), engine.RaiseRequest{Gate: "blocking", Question: "Drop the old table?",
		Options: []string{"Keep it", "Drop it"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	srv := standin.NewNtfy("")
	ch := newNtfy(t, srv)
	now := clock
	r := New(Config{Devrites: p.devrites, Channels: []Channel{ch}, Key: p.key, Log: p.log, Now: func() time.Time { return now },
		Open: func(ws *mdstore.Workspace) (*engine.Engine, error) {
			return engine.Open(ws, func() time.Time { return now }, 5*time.Second, "")
		}})

	now = clock.Add(7 * time.Hour) // overdue (4h), not yet expired
	r.Once(context.Background())
	if q := p.question(res.QID); q.Status != question.StatusOpen {
		t.Fatalf("accepted before expire_after: %s", q.Status)
	}
	now = clock.Add(8 * time.Hour)
	r.Once(context.Background())
	q := p.question(res.QID)
	if q.Status != question.StatusAnswered || q.AnsweredBy != engine.ExpiryActor || *q.Choice != 1 {
		t.Fatalf("got %s by %s, want answered by expiry", q.Status, q.AnsweredBy)
	}
	var sent, update standin.NtfyMessage
	for _, m := range srv.Messages("team") {
		switch {
		case strings.Contains(m.Title, res.QID) && m.SequenceID == "":
			sent = m
		case m.SequenceID != "":
			update = m
		}
	}
	if update.Message != "Accepted by expiry: CSV (option 1)" || update.SequenceID != sent.ID || sent.ID == "" {
		t.Errorf("sent %+v, update %+v", sent, update)
	}
	p.waitLog("accepted pay/" + res.QID + " by expiry: option 1")

	b, err := opsEngine.Get(blocking.QID)
	if err != nil {
		t.Fatal(err)
	}
	if b.Status != question.StatusOpen || strings.Join(b.EscalatedTo, ",") != "oncall-lead" {
		t.Errorf("ops %s: %s, escalated to %v; want open, escalated to oncall-lead", blocking.QID, b.Status, b.EscalatedTo)
	}
	hook, _ := os.ReadFile(filepath.Join(filepath.Dir(p.devrites), "hook.txt"))
	if !strings.Contains(string(hook), "reminder ops oncall-lead\n") {
		t.Errorf("the hook heard:\n%s", hook)
	}
	if msgs := srv.Messages("team"); len(msgs) != 3 {
		t.Errorf("%d messages, want 3: both pauses, the update of the accepted one", len(msgs))
	}
}
