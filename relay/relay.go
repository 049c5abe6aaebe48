package relay

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Channel is one chat service.
type Channel interface {
	// Name names the channel in the log and in relay.json: "ntfy team".
	Name() string
	// Send posts the message of a pause and returns the service's id of it.
	Send(ctx context.Context, m Message) (ref string, err error)
	// Update replaces the message ref with m.Outcome, without buttons.
	Update(ctx context.Context, ref string, m Message) error
	// Listen delivers taps until ctx ends or the connection fails, and
	// returns why it stopped; the relay listens again after a delay.
	// since is when the oldest message the channel still has open was
	// sent: a service that keeps taps (ntfy) is asked for those after it.
	Listen(ctx context.Context, since time.Time, taps chan<- Tap) error
}

// Tap is a press of a button, as a channel received it.
type Tap struct {
	Channel string // the channel's Name
	Token   string
	Sender  string // the service's id of the person, for the log
	By      string // answered_by: ntfy, telegram:<name>, slack:<user>
	// Allowed: the channel's allow-list names the sender. ntfy has none:
	// its topics' access control decides who may publish a tap.
	Allowed bool
	// Reply tells the person what became of the tap, where the service
	// can show it; nil where it cannot.
	Reply func(ctx context.Context, text string)
}

// Config is what a relay needs.
type Config struct {
	Devrites string // the project's .devrites directory
	// Open opens the engine of a workspace of the project.
	Open     func(*mdstore.Workspace) (*engine.Engine, error)
	Channels []Channel
	Key      caplink.Key // the project's key: tap tokens
	Now      func() time.Time
	Log      io.Writer // one line per message, tap, refusal and failure
	// Every is the time between two looks at the workspaces (default 2s);
	// Overdue, between two applications of on_overdue (default 1m).
	Every, Overdue time.Duration
	// TapTTL is how long a button works after it is sent (default 7 days).
	TapTTL time.Duration
	// MaxBackoff caps the delay before a failing channel is tried again
	// (default 1m); the first delay is a second.
	MaxBackoff time.Duration
}

// Relay sends the pauses of a project's workspaces to its channels and
// records the answers tapped there.
type Relay struct {
	cfg  Config
	mu   sync.Mutex // relay.json of every workspace, and the log
	poke []chan struct{}
	// warned are the warnings of on_overdue already logged, per workspace,
	// so that a loop does not repeat them every minute.
	warned map[string]string
}

// New makes a relay; zero durations take their defaults.
func New(cfg Config) *Relay {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.Every, 2*time.Second)
	def(&cfg.Overdue, time.Minute)
	def(&cfg.TapTTL, 7*24*time.Hour)
	def(&cfg.MaxBackoff, time.Minute)
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	r := &Relay{cfg: cfg, warned: map[string]string{}}
	for range cfg.Channels {
		r.poke = append(r.poke, make(chan struct{}, 1))
	}
	return r
}

func (r *Relay) logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.cfg.Log, "devrites-engine: relay: %s ", r.cfg.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(r.cfg.Log, format+"\n", args...)
}

// Once applies on_overdue, sends what is due on every channel at once and
// updates the messages of questions that are final, then returns. A
// channel that fails is reported in the log, and the others go on.
func (r *Relay) Once(ctx context.Context) {
	r.overdue(ctx) // first: what expiry accepts is updated in this pass
	var wg sync.WaitGroup
	for _, ch := range r.cfg.Channels {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.deliver(ctx, ch); err != nil {
				r.logf("warning: %s: %v", ch.Name(), err)
			}
		}()
	}
	wg.Wait()
}

// Run relays until ctx ends. Each channel sends and listens from its own
// goroutines; taps are answered one at a time, in the order they come.
func (r *Relay) Run(ctx context.Context) {
	taps := make(chan Tap)
	var wg sync.WaitGroup
	for i, ch := range r.cfg.Channels {
		wg.Add(2)
		go func() { defer wg.Done(); r.sending(ctx, ch, r.poke[i]) }()
		go func() { defer wg.Done(); r.listening(ctx, ch, taps) }()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			r.overdue(ctx)
			if !sleep(ctx, r.cfg.Overdue) {
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case t := <-taps:
			r.answer(ctx, t)
			r.pokeAll()
		}
	}
}

func (r *Relay) pokeAll() {
	for _, p := range r.poke {
		select {
		case p <- struct{}{}:
		default:
		}
	}
}

// sending delivers on one channel every Every, or at once when poked,
// waiting longer and longer while the channel fails.
func (r *Relay) sending(ctx context.Context, ch Channel, poke <-chan struct{}) {
	var b backoff
	for {
		wait := r.cfg.Every
		if err := r.deliver(ctx, ch); err != nil && ctx.Err() == nil {
			wait = b.next(r.cfg.MaxBackoff)
			r.logf("warning: %s: %v; trying again in %s", ch.Name(), err, wait)
		} else {
			b = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-poke:
		case <-time.After(wait):
		}
	}
}

// listening keeps a channel's connection for taps open.
func (r *Relay) listening(ctx context.Context, ch Channel, taps chan<- Tap) {
	var b backoff
	for ctx.Err() == nil {
		start := time.Now()
		err := ch.Listen(ctx, r.since(ch), taps)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > r.cfg.MaxBackoff {
			b = 0 // it worked for a while
		}
		wait := b.next(r.cfg.MaxBackoff)
		r.logf("warning: %s: listening for taps: %v; trying again in %s", ch.Name(), err, wait)
		if !sleep(ctx, wait) {
			return
		}
	}
}

// backoff is the delay before a failing channel is tried again: 1s, 2s,
// 4s … up to a maximum.
type backoff time.Duration

func (b *backoff) next(limit time.Duration) time.Duration {
	*b = backoff(min(max(time.Duration(*b)*2, time.Second), limit))
	return time.Duration(*b)
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// since is when the oldest message still open on ch was sent, or now.
func (r *Relay) since(ch Channel) time.Time {
	oldest := r.cfg.Now()
	for _, ws := range r.workspaces() {
		r.mu.Lock()
		rec, err := loadRecord(ws.Dir)
		r.mu.Unlock()
		if err != nil {
			continue
		}
		for _, s := range rec.Sent {
			if t, err := time.Parse(time.RFC3339, s.SentAt); err == nil && s.Channel == ch.Name() && t.Before(oldest) {
				oldest = t
			}
		}
	}
	return oldest
}

// clientOr is c, or for nil a client whose requests give up after 30 s.
func clientOr(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// workspaces are the feature directories of the project.
func (r *Relay) workspaces() []*mdstore.Workspace { return mdstore.Workspaces(r.cfg.Devrites) }

// deliver sends the pauses ch has not had, and updates its messages of
// questions that are final, in every workspace. It stops at the first
// failure of the channel; a workspace that cannot be read is logged and
// passed over.
func (r *Relay) deliver(ctx context.Context, ch Channel) error {
	for _, ws := range r.workspaces() {
		eng, err := r.cfg.Open(ws)
		if err != nil {
			r.logf("warning: %s: %v", ws.Slug, err)
			continue
		}
		var pauses []question.Question
		err = eng.List(engine.ListFilter{Status: question.StatusOpen}, func(q question.Question) error {
			if q.Awaited || q.Provisional {
				pauses = append(pauses, q)
			}
			return nil
		})
		if err != nil {
			r.logf("warning: %s: %v", ws.Slug, err)
			continue
		}
		r.mu.Lock()
		rec, err := loadRecord(ws.Dir)
		r.mu.Unlock()
		if err != nil {
			r.logf("warning: %v", err)
			continue
		}
		for _, q := range pauses {
			old, done := rec.sentFor(q, ch.Name())
			if done && old.QID == q.QID {
				continue
			}
			if ctx.Err() != nil {
				return nil
			}
			// A send under way when the relay is stopped is finished
			// and recorded (the client's timeout bounds it): a message
			// the service took is never sent again.
			m := r.message(eng, ws, q)
			ref, err := ch.Send(context.WithoutCancel(ctx), m)
			if err != nil {
				return fmt.Errorf("sending %s/%s: %w", ws.Slug, q.QID, err)
			}
			if err := r.edit(ws, func(rec *record) {
				rec.Sent = append(rec.Sent, sent{QID: q.QID, Fingerprint: q.Fingerprint, Channel: ch.Name(), Ref: ref, SentAt: r.stamp()})
			}); err != nil {
				return err
			}
			r.logf("sent %s/%s to %s", ws.Slug, q.QID, ch.Name())
			if done { // sent before a merge renumbered it: the old copy is told
				if err := r.renumbered(ctx, ch, ws, old, q); err != nil {
					return err
				}
				r.closeRef(&rec, old)
			}
		}
		for _, s := range rec.Sent {
			if s.Channel != ch.Name() || slices.ContainsFunc(pauses, s.of) {
				continue
			}
			q, err := eng.GetByFingerprint(s.QID, s.Fingerprint)
			if err == nil && q.Status == question.StatusOpen {
				continue // open, no longer a pause (a stop, another pause): the buttons still work
			}
			if err != nil {
				q = question.Question{QID: s.QID}
			}
			m := Message{Slug: ws.Slug, QID: s.QID, Title: title(ws, q), Outcome: outcome(q, err)}
			if err := ch.Update(context.WithoutCancel(ctx), s.Ref, m); err != nil {
				return fmt.Errorf("updating %s/%s: %w", ws.Slug, s.QID, err)
			}
			if err := r.edit(ws, func(rec *record) { r.closeRef(rec, s) }); err != nil {
				return err
			}
			r.logf("updated %s/%s on %s: %s", ws.Slug, s.QID, ch.Name(), m.Outcome)
		}
	}
	return nil
}

// closeRef drops message s from the record, its buttons known until they
// expire.
func (r *Relay) closeRef(rec *record, s sent) {
	rec.removeRef(s.Ref, s.Channel, r.cfg.Now(), r.cfg.Now().Add(r.cfg.TapTTL))
}

// edit changes a workspace's relay.json.
func (r *Relay) edit(ws *mdstore.Workspace, fn func(*record)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, err := loadRecord(ws.Dir)
	if err != nil {
		return err
	}
	fn(&rec)
	return rec.save(ws.Dir)
}

// overdue applies on_overdue in every workspace (engine.Remind).
func (r *Relay) overdue(ctx context.Context) {
	for _, ws := range r.workspaces() {
		eng, err := r.cfg.Open(ws)
		if err != nil {
			continue // deliver says why
		}
		res, err := eng.Remind(ctx)
		if err != nil {
			r.logf("warning: %s: on_overdue: %v", ws.Slug, err)
			continue
		}
		for _, q := range res.Accepted {
			r.logf("accepted %s/%s by expiry: option 1", ws.Slug, q.QID)
		}
		for _, q := range res.Reminded {
			r.logf("reminded %s/%s", ws.Slug, q.QID)
		}
		if w := fmt.Sprint(res.Warnings); len(res.Warnings) > 0 && r.warned[ws.Slug] != w {
			r.warned[ws.Slug] = w
			for _, x := range res.Warnings {
				r.logf("warning: %s: %s", ws.Slug, x)
			}
		}
		if len(res.Accepted) > 0 {
			r.pokeAll()
		}
	}
}
