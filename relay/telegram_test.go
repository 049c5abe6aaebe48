package relay

import (
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/relay/standin"
)

var ann = standin.TelegramUser{ID: 123456789, FirstName: "Ann", Username: "ann"}

func newTelegram(t *testing.T, srv *standin.Telegram) *Telegram {
	t.Cleanup(srv.Close)
	return &Telegram{API: srv.URL, Token: srv.Token, ChatID: "123456789", Allow: []string{"123456789"}, PollTimeout: time.Second}
}

// telegramPause raises a pause, runs a relay to a Telegram stand-in, and
// returns the message the bot sent.
func telegramPause(t *testing.T) (*project, string, *standin.Telegram, standin.TelegramMessage) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	srv := standin.NewTelegram("123:ABC")
	run(t, p.relay(newTelegram(t, srv)))
	msgs, err := srv.WaitMessages(1, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	return p, id, srv, msgs[0]
}

func TestTelegramTapAnswers(t *testing.T) {
	p, id, srv, m := telegramPause(t)
	var labels []string
	for _, row := range m.Keyboard {
		labels = append(labels, row[0].Text)
	}
	if got, want := strings.Join(labels, " | "), "1. Banker's rounding | 2. Round half up | Reject"; got != want {
		t.Errorf("keyboard: got %q, want %q", got, want)
	}
	if !strings.HasPrefix(m.Text, "pay: "+id+" · blocking\n\nWhich rounding?\n") {
		t.Errorf("text:\n%s", m.Text)
	}
	cb := srv.Press(m, 0, ann)
	said, err := srv.WaitAnswer(cb, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pay/" + id + " answered (option 1): Banker's rounding"; said != want {
		t.Errorf("told %q, want %q", said, want)
	}
	q := p.waitFinal(id)
	if q.AnsweredBy != "telegram:ann" || q.AnsweredVia != "telegram" || q.Choice == nil || *q.Choice != 1 {
		t.Errorf("answered_by %q via %q, choice %v; want telegram:ann via telegram, 1", q.AnsweredBy, q.AnsweredVia, q.Choice)
	}
	edited, err := srv.WaitEdited(m.ID, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "pay: " + id + " · blocking\n\nAnswered by telegram:ann: Banker's rounding (option 1)"; edited.Text != want || edited.Keyboard != nil {
		t.Errorf("edited to %q with keyboard %v, want %q and none", edited.Text, edited.Keyboard, want)
	}
	// A second tap, on the old keyboard, is told.
	cb = srv.Press(m, 1, ann)
	said, err = srv.WaitAnswer(cb, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Not recorded: " + id + " was already answered by telegram:ann: banker's rounding (option 1)"; !strings.EqualFold(said, want) {
		t.Errorf("second tap told %q, want %q", said, want)
	}
	if q := p.question(id); *q.Choice != 1 {
		t.Errorf("the second tap changed the choice to %d", *q.Choice)
	}
}

func TestTelegramRefusals(t *testing.T) {
	p, id, srv, m := telegramPause(t)
	stranger := standin.TelegramUser{ID: 99, FirstName: "Eve", Username: "eve"}
	for _, c := range []struct {
		name, data string
		from       standin.TelegramUser
		want       string
	}{
		{"stranger", m.Keyboard[0][0].CallbackData, stranger, "Not recorded: sender 99 is not on the allow-list of telegram 123456789"},
		{"forged", id + ":1:1999999999:AAAAAAAAAAAAAAAAAAAAAA", ann, "Not recorded: not a button of this relay (forged or altered)"},
		{"altered", strings.Replace(m.Keyboard[2][0].CallbackData, ":r:", ":1:", 1), ann, "Not recorded: not a button of this relay (forged or altered)"},
	} {
		said, err := srv.WaitAnswer(srv.PressData(m, c.data, c.from), waitFor)
		if err != nil {
			t.Fatal(err)
		}
		if said != c.want {
			t.Errorf("%s: told %q, want %q", c.name, said, c.want)
		}
	}
	p.waitLog("refused a tap by telegram:eve on telegram 123456789: sender 99 is not on the allow-list")
	if q := p.question(id); q.Status != question.StatusOpen {
		t.Errorf("a refused tap changed %s to %s", id, q.Status)
	}
}

// A tap on one channel replaces the copies on every other.
func TestCopiesUpdatedOnEveryChannel(t *testing.T) {
	p := newProject(t)
	id := p.raise("Which rounding?")
	tg, nt := standin.NewTelegram("123:ABC"), standin.NewNtfy("")
	run(t, p.relay(newNtfy(t, nt), newTelegram(t, tg)))
	msgs, err := tg.WaitMessages(1, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nt.WaitMessages("team", 1, waitFor); err != nil {
		t.Fatal(err)
	}
	tg.Press(msgs[0], 1, ann)
	up, err := nt.WaitMessages("team", 2, waitFor)
	if err != nil {
		t.Fatal(err)
	}
	if up[1].Message != "Answered by telegram:ann: Round half up (option 2)" {
		t.Errorf("ntfy copy: %q", up[1].Message)
	}
	if q := p.waitFinal(id); q.AnsweredBy != "telegram:ann" {
		t.Errorf("answered by %s", q.AnsweredBy)
	}
}
