package engine

import (
	"context"
	"errors"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// Cursor statuses: the status key of state.md (mdstore.CursorStatuses).
const (
	CursorRunning  = mdstore.CursorRunning
	CursorAwaiting = mdstore.CursorAwaiting
	CursorBlocked  = mdstore.CursorBlocked
	// CursorDone is DevRites' closed workflow: read and checked, never
	// written by the engine.
	CursorDone = mdstore.CursorDone
)

// Engine acts on one workspace.
type Engine struct {
	WS          *mdstore.Workspace
	Now         func() time.Time
	LockTimeout time.Duration
	Actor       string // answered_by for people; "human" when empty
	Templates   config.Templates
	AFK         config.AFK
	configErr   error // engine.yaml does not parse: every write is refused
	// Hook is the notify hook's configuration: notify.yaml, else the AFK
	// file's notify keys (LoadHook).
	Hook  config.AFK
	Rules config.Rules // .devrites/rules.yaml
	// signer signs a person's resolutions (SetSigner, signing.go).
	signer Signer
	// answerKey is the project's key of answer links (.devrites/serve.key),
	// read (or created) at the first event that needs it, once.
	answerKey func() (caplink.Key, error)
	// severalWorkspaces reports whether the project has more than one
	// feature directory, read once.
	severalWorkspaces func() bool
	// Pick is --fingerprint: the fingerprint, or a prefix of it of at
	// least FingerprintMin hex digits, of the question a command names
	// (pick.go).
	Pick string
}

// Open prepares an engine for a found workspace, reading its configuration.
func Open(ws *mdstore.Workspace, now func() time.Time, lockTimeout time.Duration, actor string) (*Engine, error) {
	t, err := config.LoadTemplates(ws.Devrites)
	if err != nil {
		// Reads go on with the default texts; writes, which would put the
		// wrong next_action into state.md, are refused until it is fixed.
		err = mdstore.WithHint(err, "fix the YAML, or delete the file to use the default next_action texts")
	}
	if !utf8.ValidString(actor) {
		return nil, mdstore.Errorf(ErrBadArgs, "DEVRITES_ACTOR is not valid UTF-8")
	}
	if strings.ContainsAny(actor, "\r\n") {
		return nil, mdstore.Errorf(ErrBadArgs, "DEVRITES_ACTOR has a line break").Hint("a name is one line")
	}
	if actor == "" {
		actor = "human"
	}
	afk := config.LoadAFK(ws.Devrites)
	return &Engine{WS: ws, Now: now, LockTimeout: lockTimeout, Actor: actor, Templates: t, AFK: afk, Hook: config.LoadHook(ws.Devrites, afk),
		Rules: config.LoadRulesIn(ws.Devrites, ws.Slug), configErr: err,
		answerKey:         sync.OnceValues(func() (caplink.Key, error) { return caplink.Ensure(ws.Devrites) }),
		severalWorkspaces: sync.OnceValue(func() bool { return ws.Devrites != "" && len(mdstore.Workspaces(ws.Devrites)) > 1 })}, nil
}

// answerer is who answers: by (--by), else the engine's Actor. A name is
// one line: answered_by and a response's "by" hold it as a field value.
func (e *Engine) answerer(by string) (string, error) {
	if by == "" {
		return e.Actor, nil
	}
	if strings.ContainsAny(by, "\r\n") {
		return "", mdstore.Errorf(ErrBadArgs, "--by %q has a line break", question.Brief(by)).Hint("a name is one line")
	}
	for _, name := range question.SplitNames(by) { // "alice, bob": each name, so a routed question can say why not both
		if err := config.CheckName("--by", name); err != nil {
			return "", err
		}
	}
	return by, nil
}

// ConfigErr is why .devrites/engine.yaml cannot be used, or nil: reads go
// on with the default texts, writes are refused.
func (e *Engine) ConfigErr() error { return e.configErr }

func (e *Engine) timestamp() string { return qid.Timestamp(e.Now()) }

// Files is the parsed workspace inside a transaction or a read: state.md
// and questions.md parsed, decisions.md's bytes, and HasDec, whether
// decisions.md is there. A write changes them in place and the transaction
// writes them out at commit; decisions.md's bytes are replaced or appended
// to, never changed in place, so bytes read before a change still hold
// what was read.
type Files struct {
	State     *mdstore.State
	Questions *mdstore.Questions
	Decisions []byte
	HasDec    bool
	// renumbered is the ids renumbered_from fields name, in lower case, as
	// the read's scan found them (scan.go); nil when not scanned.
	renumbered map[string]bool
}

// wsFiles is the workspace as load read it: the parse, and the bytes it
// was parsed from.
type wsFiles struct {
	Files
	hasState, hasQ   bool
	origQ, origState []byte
}

// Follow corrects f's references by identity and restores lost pauses, as
// every command's read does (follow, identity.go), and returns what it
// did, in order: nothing when every reference names its own question and
// no pause was lost.
func (e *Engine) Follow(f *Files) []Correction { return e.follow(f, scanBlocks(f.Questions)) }

// checkState refuses state.md files the binary does not understand.
func checkState(path string, s *mdstore.State) error {
	n, err := s.Schema()
	if err != nil {
		return mdstore.Errorf(ErrMalformed, "%s: %v", path, err).Hint("set the schema row to "+strconv.Itoa(mdstore.SchemaVersion)).Fix(mdstore.RunDoctor, "")
	}
	if n > mdstore.SchemaVersion {
		return mdstore.Errorf(ErrSchema, "%s: schema %d is newer than this binary understands (%d)", path, n, mdstore.SchemaVersion).
			Hint("this workspace was written by a newer version").Fix(UpgradeEngine, "")
	}
	return nil
}

// ReadUnlocked reads a workspace file without the lock; a missing one is
// absent (false), not an error. Reads outside a transaction: two files
// read so may come from two different ones.
func (e *Engine) ReadUnlocked(name string) ([]byte, bool, error) {
	b, err := e.WS.ReadFile(name)
	if isMissing(err) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// read loads the workspace without the lock, for read-only commands (which
// do not need decisions.md).
func (e *Engine) read() (*Files, error) {
	w, err := e.load(e.ReadUnlocked, false)
	if err != nil {
		return nil, err
	}
	f := w.Files // not &w.Files, which would keep the bytes read for a write too
	sc := scanBlocks(f.Questions)
	e.follow(&f, sc) // what the next write corrects, a read sees already
	f.renumbered = sc.earlier
	return &f, nil
}

// load reads and parses the workspace through read (a transaction's reads,
// or plain ones outside the lock): state.md must be there, in a schema this
// binary reads; questions.md and, with decisions, decisions.md may be
// missing and read as their empty form.
func (e *Engine) load(read func(string) ([]byte, bool, error), decisions bool) (*wsFiles, error) {
	sb, ok, err := read(mdstore.StateFile)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, mdstore.Errorf(mdstore.ErrMissing, "%s: missing", e.WS.Path(mdstore.StateFile)).Fix(mdstore.RunDoctor, "")
	}
	w := &wsFiles{hasState: true, origState: sb, Files: Files{State: mdstore.ParseState(sb)}}
	if err := checkState(e.WS.Path(mdstore.StateFile), w.State); err != nil {
		return nil, err
	}
	origQ, hasQ, err := read(mdstore.QuestionsFile)
	if err != nil {
		return nil, err
	}
	if w.origQ, w.hasQ = origQ, hasQ; !hasQ {
		w.origQ = []byte("# Questions\n")
	}
	w.Questions = mdstore.ParseQuestions(w.origQ)
	if decisions {
		if w.Decisions, w.HasDec, err = read(mdstore.DecisionsFile); err != nil {
			return nil, err
		}
		if !w.HasDec {
			w.Decisions = []byte("# Decisions\n")
		}
	}
	return w, nil
}

// transact runs fn on the parsed workspace under the lock, stages what it
// changed and returns what fn returned. fn is a function of the files it is
// given (mdstore.Transact may run it again on newer ones): it changes them
// and returns its result, and keeps nothing else. questions.md and
// decisions.md are created when missing.
func transact[T any](ctx context.Context, e *Engine, fn func(*Files) (T, error)) (T, error) {
	return mdstore.Transact(ctx, e.WS, e.LockTimeout, func(tx *mdstore.Tx) (T, error) { return within(e, tx, fn) })
}

// within is transact's work inside a transaction that is already open, for
// callers that change other files of the workspace in the same one.
func within[T any](e *Engine, tx *mdstore.Tx, fn func(*Files) (T, error)) (T, error) {
	var zero T
	if e.configErr != nil {
		return zero, e.configErr
	}
	w, err := e.load(tx.ReadOptional, true)
	if err != nil {
		return zero, err
	}
	// One scan of the blocks serves the guard and follow. The guard runs
	// before the edit: a refusal writes nothing.
	sc := scanBlocks(w.Questions)
	if err := e.readable(w, sc); err != nil {
		return zero, err
	}
	f := &w.Files
	e.follow(f, sc)
	f.renumbered = sc.earlier
	v, err := fn(f)
	if err != nil {
		return zero, err
	}
	if w.hasQ || len(f.Questions.Blocks()) > 0 {
		tx.WriteContent(mdstore.QuestionsFile, f.Questions)
	}
	tx.WriteContent(mdstore.StateFile, f.State)
	if f.HasDec || string(f.Decisions) != "# Decisions\n" {
		tx.Write(mdstore.DecisionsFile, f.Decisions)
	}
	return v, nil
}

func isMissing(err error) bool { return err != nil && errors.Is(err, mdstore.ErrMissing) }

// questions yields the questions of a status ("all": every question) in
// file order; the blocks of other statuses are passed over with a look at
// their status alone. A block's fields are let go once read, so a pass
// over a large file holds one question's at a time. The file must not be
// edited during the pass.
func (e *Engine) questions(qs *mdstore.Questions, status string) iter.Seq[question.Question] {
	return func(yield func(question.Question) bool) {
		now := e.Now()
		set := contested(qs)
		for _, b := range qs.Blocks() {
			if v, _ := b.Peek("status"); status != "all" && v[0] != status {
				b.Release() // a register row's cells are read to peek
				continue
			}
			q := question.FromBlock(b, now)
			q = e.described(q, isContested(q, set))
			b.Release()
			if !yield(q) {
				return
			}
		}
	}
}

// ofBreakpoint returns the questions of breakpoint bp in file order (none
// when bp is ""): all the history the policy and a re-raise look at. Only
// the breakpoint of the other blocks is read.
func (e *Engine) ofBreakpoint(qs *mdstore.Questions, bp string) []question.Question {
	if bp == "" {
		return nil
	}
	now := e.Now()
	var out []question.Question
	for _, b := range qs.Blocks() {
		if !b.Holds("breakpoint", bp) {
			continue
		}
		if q := question.FromBlock(b, now); q.Breakpoint == bp {
			out = append(out, q)
		}
	}
	return e.answeredHere(out) // streak.go
}

// blank reports whether text holds nothing a person could have meant:
// only white space and invisible format characters (zero-width spaces,
// byte order marks). Such an answer is never taken for approval.
func blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// appendOnce appends the warnings not already in ws.
func appendOnce(ws []string, more ...string) []string {
	for _, w := range more {
		if w != "" && !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return ws
}
