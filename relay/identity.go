package relay

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// A tap binds the question, not its id (docs/relay.md). A merge may give
// a question's id to another question and renumber it: a button names the
// question's fingerprint, and the relay keeps what it sent by fingerprint,
// so a tap lands on the question it was sent for, under its id now, or
// nowhere; and a question renumbered after it was sent is sent again
// under its new id, the old copy told so.

// tapped finds the workspace, its engine and the whole fingerprint a
// token was made for: the fingerprints starting as the token's are those
// of the workspace's questions and of what the relay sent there. A
// workspace is nil when the token is none of this relay's.
func (r *Relay) tapped(tk tap) (*mdstore.Workspace, *engine.Engine, string, error) {
	var failed error
	for _, ws := range r.workspaces() {
		eng, err := r.cfg.Open(ws)
		if err != nil {
			failed = err
			continue
		}
		var fps []string
		r.mu.Lock()
		rec, err := loadRecord(ws.Dir)
		r.mu.Unlock()
		if err == nil {
			for _, s := range rec.Sent {
				fps = append(fps, s.Fingerprint)
			}
			for _, c := range rec.Closed {
				fps = append(fps, c.Fingerprint)
			}
		}
		err = eng.List(engine.ListFilter{Status: "all"}, func(q question.Question) error {
			fps = append(fps, q.Fingerprint)
			return nil
		})
		if err != nil {
			failed = err
		}
		for _, fp := range fps {
			if fp != "" && tk.validFor(r.cfg.Key, ws.Project, ws.Slug, fp) {
				return ws, eng, fp, nil
			}
		}
	}
	if failed != nil {
		return nil, nil, "", failed // the token may be of a workspace that does not read
	}
	return nil, nil, "", nil
}

// changedText says why a tap whose question changed was not recorded.
func changedText(id string) string {
	return "the question changed: no question is the one these buttons were sent for as " + id +
		" (a merge, a branch switch or an edit changed it); nothing was recorded on it or on another"
}

// of reports whether a sent message is of q: by fingerprint (an entry of
// an earlier relay, without one, by qid).
func (s sent) of(q question.Question) bool {
	return s.Fingerprint == q.Fingerprint || s.Fingerprint == "" && s.QID == q.QID
}

// sentFor is what the record holds of q on channel.
func (rec record) sentFor(q question.Question, channel string) (sent, bool) {
	i := slices.IndexFunc(rec.Sent, func(s sent) bool { return s.Channel == channel && s.of(q) })
	if i < 0 {
		return sent{}, false
	}
	return rec.Sent[i], true
}

// renumbered tells the copy of a question sent as old that it was
// renumbered and sent again as q, and drops it from the record.
func (r *Relay) renumbered(ctx context.Context, ch Channel, ws *mdstore.Workspace, old sent, q question.Question) error {
	m := Message{Slug: ws.Slug, QID: old.QID, Title: title(ws, question.Question{QID: old.QID, Gate: q.Gate}),
		Outcome: fmt.Sprintf("Renumbered: this question is %s now (a merge gave %s to another question); answer it on the new message", q.QID, old.QID)}
	if err := ch.Update(context.WithoutCancel(ctx), old.Ref, m); err != nil {
		return fmt.Errorf("updating %s/%s: %w", ws.Slug, old.QID, err)
	}
	if err := r.edit(ws, func(rec *record) { r.closeRef(rec, old) }); err != nil {
		return err
	}
	r.logf("updated %s/%s on %s: %s", ws.Slug, old.QID, ch.Name(), m.Outcome)
	return nil
}

// stamp is the time the record keeps.
func (r *Relay) stamp() string { return r.cfg.Now().UTC().Format(time.RFC3339) }
