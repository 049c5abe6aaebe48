package relay

import (
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/relay/standin"
)

var bob = standin.SlackUser{ID: "U0123456", Username: "bob"}

func newSlack(t *testing.T, srv *standin.Slack) *Slack {
	t.Cleanup(srv.Close)
	return &Slack{API: srv.API(), BotToken: srv.BotToken, AppToken: srv.AppToken, Channel: "C0123456", Allow: []string{"U0123456"}}
}

// slackPause raises a pause, runs a relay to a Slack stand-in, and
// returns the message the relay posted.
func slackPause(t *testing.T) (*project, string, *standin.Slack, standin.SlackMessage) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	srv := standin.NewSlack("xoxb-test", "xapp-test")
	run(t, p.relay(newSlack(t, srv)))
	msgs, err := srv.WaitMessages(1, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	return p, id, srv, msgs[0]
}

func TestSlackTapAnswers(t *testing.T) {
	p, id, srv, m := slackPause(t)
	var labels []string
	for _, b := range m.Buttons {
		labels = append(labels, b.Text)
	}
	if got, want := strings.Join(labels, " | "), "1. Banker's rounding | 2. Round half up | Reject"; got != want {
		t.Errorf("buttons: got %q, want %q", got, want)
	}
	if m.Buttons[2].Style != "danger" {
		t.Errorf("Reject is styled %q, want danger", m.Buttons[2].Style)
	}
	said, err := srv.Press(m, 1, bob, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pay/" + id + " answered (option 2): Round half up"; said != want {
		t.Errorf("told %q, want %q", said, want)
	}
	q := p.waitFinal(id)
	if q.AnsweredBy != "slack:bob" || *q.Choice != 2 {
		t.Errorf("answered_by %q, choice %d; want slack:bob, 2", q.AnsweredBy, *q.Choice)
	}
	up, err := srv.WaitUpdated(m.TS, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pay: " + id + " · blocking\nAnswered by slack:bob: Round half up (option 2)"; up.Text != want || len(up.Buttons) != 0 {
		t.Errorf("updated to %q with %d buttons, want %q and none", up.Text, len(up.Buttons), want)
	}
	said, err = srv.Press(m, 0, bob, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(said, "Not recorded: "+id+" was already answered by slack:bob") {
		t.Errorf("second tap told %q", said)
	}
}

func TestSlackRefusals(t *testing.T) {
	p, id, srv, m := slackPause(t)
	said, err := srv.Press(m, 0, standin.SlackUser{ID: "U0BADBAD", Username: "mallory"}, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Not recorded: sender U0BADBAD is not on the allow-list of slack C0123456"; said != want {
		t.Errorf("stranger told %q, want %q", said, want)
	}
	said, err = srv.PressValue(m, "devrites-1", id+":1:1999999999:AAAAAAAAAAAAAAAAAAAAAA", bob, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Not recorded: not a button of this relay (forged or altered)"; said != want {
		t.Errorf("forged told %q, want %q", said, want)
	}
	// Slack asks for a new connection: the relay connects again and
	// still takes taps.
	if err := srv.Disconnect(); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Press(m, 0, bob, waitFor); err != nil {
		t.Fatal(err)
	}
	if q := p.waitFinal(id); q.Status != question.StatusAnswered || q.AnsweredBy != "slack:bob" {
		t.Errorf("got %s by %s", q.Status, q.AnsweredBy)
	}
}
