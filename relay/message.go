package relay

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Message is what a channel shows of a question.
type Message struct {
	Slug, QID string
	Title     string // "pay: q-2026-11-29-001 · blocking"
	Text      string // the question, the option set, how else to answer
	Buttons   []Button
	// Outcome, for an update, says who answered what; the message then
	// has no buttons.
	Outcome string
}

// Button is one option, or the reject.
type Button struct {
	Label  string // "2. Round half up", "Reject"
	Token  string
	Reject bool
}

// message is what the channels show of an open question q of ws.
func (r *Relay) message(eng *engine.Engine, ws *mdstore.Workspace, q question.Question) Message {
	m := Message{Slug: ws.Slug, QID: q.QID, Title: title(ws, q)}
	var b strings.Builder
	b.WriteString(q.Question + "\n")
	if q.Slice != "" {
		fmt.Fprintf(&b, "Slice %s · %s · SLA %s\n", q.Slice, q.Gate, q.SLA)
	}
	expiry := r.cfg.Now().Add(r.cfg.TapTTL)
	for i, opt := range q.Options {
		n := strconv.Itoa(i + 1)
		fmt.Fprintf(&b, "%s. %s\n", n, opt)
		if question.IsEscapeHatch(opt) {
			continue // it needs words: a terminal, serve or chat
		}
		m.Buttons = append(m.Buttons, Button{Label: n + ". " + question.OptionTitle(opt),
			Token: tapToken(r.cfg.Key, ws.Project, ws.Slug, q.QID, q.Fingerprint, n, expiry)})
	}
	m.Buttons = append(m.Buttons, Button{Label: "Reject", Reject: true,
		Token: tapToken(r.cfg.Key, ws.Project, ws.Slug, q.QID, q.Fingerprint, RejectChoice, expiry)})
	fmt.Fprintf(&b, "Tap an option, or Reject to send it back for re-scoping. In words: %s", eng.ResolveCommand(q))
	m.Text = b.String()
	return m
}

// title names the workspace, the question and its gate.
func title(ws *mdstore.Workspace, q question.Question) string {
	if q.Gate == "" {
		return ws.Slug + ": " + q.QID
	}
	return ws.Slug + ": " + q.QID + " · " + q.Gate
}

// outcome says how a question ended, for the copies of its message.
func outcome(q question.Question, err error) string {
	if errors.Is(err, engine.ErrChanged) { // no question is the one sent
		return "The question changed (a merge, a branch switch or an edit): its buttons here record nothing"
	}
	if err != nil {
		return "no longer in questions.md: " + err.Error()
	}
	by := q.AnsweredBy
	if by == "" {
		by = "someone"
	}
	text := ""
	if q.Answer != nil {
		text = *q.Answer
	}
	switch {
	case q.Status == question.StatusAnswered && by == engine.ExpiryActor:
		return fmt.Sprintf("Accepted by expiry: %s", withChoice(text, q.Choice))
	case q.Status == question.StatusAnswered:
		return fmt.Sprintf("Answered by %s: %s", by, withChoice(text, q.Choice))
	case q.Status == question.StatusRejected:
		return fmt.Sprintf("Rejected by %s: %s", by, text)
	case q.Status == question.StatusDropped:
		return fmt.Sprintf("Dropped by %s: %s", by, text)
	}
	return "Closed (" + q.Status + ")"
}

func withChoice(text string, choice *int) string {
	if choice == nil {
		return text
	}
	return fmt.Sprintf("%s (option %d)", text, *choice)
}

// answer records a tap, or refuses it, and tells the log and the person.
func (r *Relay) answer(ctx context.Context, t Tap) {
	said, ok := r.verdict(ctx, t)
	if ok {
		r.logf("%s by %s on %s", said, t.By, t.Channel)
	} else {
		r.logf("refused a tap by %s on %s: %s", t.By, t.Channel, said)
		said = "Not recorded: " + said
	}
	if t.Reply != nil {
		t.Reply(ctx, said)
	}
}

// verdict applies a tap: what was recorded, or why nothing was.
func (r *Relay) verdict(ctx context.Context, t Tap) (string, bool) {
	if !t.Allowed {
		return fmt.Sprintf("sender %s is not on the allow-list of %s", t.Sender, t.Channel), false
	}
	tk, ok := parseToken(t.Token)
	if !ok {
		return "not a button of this relay (forged or altered)", false
	}
	ws, eng, fp, err := r.tapped(tk)
	if err != nil {
		return err.Error(), false
	}
	if ws == nil {
		return "not a button of this relay (forged or altered)", false
	}
	if !r.cfg.Now().Before(tk.expiry) {
		return fmt.Sprintf("the buttons of %s expired at %s", tk.qid, tk.expiry.UTC().Format("2006-01-02T15:04:05Z")), false
	}
	// The question the button was sent for, under whatever id it has now:
	// never the question that holds its qid now.
	q, err := eng.GetByFingerprint(tk.qid, fp)
	if errors.Is(err, engine.ErrChanged) {
		return changedText(tk.qid), false
	}
	if err != nil {
		return err.Error(), false
	}
	if q.Status != question.StatusOpen {
		return fmt.Sprintf("%s was already %s", q.QID, strings.ToLower(outcome(q, nil))), false
	}
	item := engine.Resolution{QID: q.QID, Kind: question.StatusAnswered, Text: tk.choice}
	if tk.choice == RejectChoice {
		item = engine.Resolution{QID: q.QID, Kind: question.StatusRejected, Text: "rejected with one tap on " + t.Channel + ", without words"}
	}
	item.Fingerprint = fp
	item.Via, _, _ = strings.Cut(t.Channel, " ") // the kind of channel: ntfy, telegram, slack
	res, err := eng.Resolve(ctx, []engine.Resolution{item}, t.By)
	if errors.Is(err, engine.ErrChanged) {
		return changedText(tk.qid), false
	}
	if errors.Is(err, engine.ErrNotOpen) || errors.Is(err, engine.ErrConflict) {
		if q, gerr := eng.GetByFingerprint(tk.qid, fp); gerr == nil && q.Status != question.StatusOpen {
			return fmt.Sprintf("%s was already %s", q.QID, strings.ToLower(outcome(q, nil))), false
		}
	}
	if err != nil {
		return err.Error(), false
	}
	for _, w := range res.Warnings { // the notify hook's, as state resolve prints them
		r.logf("warning: %s/%s: %s", ws.Slug, tk.qid, w)
	}
	d := res.Resolved[0]
	if d.Unchanged {
		return fmt.Sprintf("%s was already %s", tk.qid, d.Status), false
	}
	said := fmt.Sprintf("%s/%s %s", ws.Slug, d.QID, d.Status)
	if d.Choice != nil {
		said += fmt.Sprintf(" (option %d)", *d.Choice)
	}
	if d.Status == question.StatusOpen { // a routed question waiting for more responses
		said += ": response recorded; " + d.Progress
	} else if d.Answer != "" {
		said += ": " + d.Answer
	}
	return said, true
}
