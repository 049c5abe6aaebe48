package relay

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/relay/standin"
	"github.com/devrites/devrites-engine/trust"
)

// The relay applies on_overdue: a validating pause nobody answers is
// accepted by expiry once expire_after has passed, and its copies say so;
// before that, it is not.
func TestRelayAcceptsByExpiry(t *testing.T) {
	home := t.TempDir() // the trust store of this test, not the person's
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	p := newProject(t)
	conf := filepath.Join(p.devrites, "notify.yaml")
	if err := os.WriteFile(conf, []byte("on_overdue:\n  validating: {expire_after: 8h, accept: recommended}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := trust.Open()
	if err == nil {
		_, err = s.Trust(conf)
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.engine().Raise(context.Background(), engine.RaiseRequest{Gate: "validating", Question: "Export format?",
		Options: []string{"CSV", "JSON"}}, "")
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
	if q := p.question(res.QID); q.Status != engine.StatusOpen {
		t.Fatalf("accepted before expire_after: %s", q.Status)
	}
	now = clock.Add(8 * time.Hour)
	r.Once(context.Background())
	q := p.question(res.QID)
	if q.Status != engine.StatusAnswered || q.AnsweredBy != engine.ExpiryActor || *q.Choice != 1 {
		t.Fatalf("got %s by %s, want answered by expiry", q.Status, q.AnsweredBy)
	}
	msgs := srv.Messages("team")
	if len(msgs) != 2 || msgs[1].Message != "Accepted by expiry: CSV (option 1)" || msgs[1].SequenceID != msgs[0].ID {
		t.Errorf("messages: %+v", msgs)
	}
	p.waitLog("accepted pay/" + res.QID + " by expiry: option 1")
}
