package claims

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/qid"
)

// Store is the claims of one project.
type Store struct {
	Dir         string        // the .devrites directory
	LockTimeout time.Duration // how long a write waits for the lock
	Now         func() time.Time
}

// Path is the claims file.
func (s Store) Path() string { return filepath.Join(s.Dir, File) }

// Read reads the claims without the lock.
func (s Store) Read() (*Set, error) { return Read(s.Dir) }

// Checked is what Check found.
type Checked struct {
	Paths    []string  // the paths asked for, normalised
	Holds    []Hold    // the live claims of other sessions that hold them
	Problems []Problem // the lines of the file that were skipped
}

// Check reads, without the lock, which of paths live claims of sessions
// other than session ("": of every session) hold. A Store without a
// .devrites directory is refused: its file would be claims.jsonl in the
// working directory, not the project's.
func (s Store) Check(session string, paths []string) (Checked, error) {
	if session != "" {
		if err := CheckSession(session); err != nil {
			return Checked{}, err
		}
	}
	paths, err := Paths(paths)
	if err != nil {
		return Checked{}, err
	}
	if s.Dir == "" {
		return Checked{}, mdstore.Errorf(mdstore.ErrNoWorkspace, "no .devrites directory to read %s from: a feature directory outside .devrites has no claims", File)
	}
	set, err := s.Read()
	if err != nil {
		return Checked{}, err
	}
	return Checked{Paths: paths, Holds: set.Held(paths, session, s.Now()), Problems: set.Problems}, nil
}

// Warnings say which lines of the file a read skipped: none, or one line
// naming how many and the first.
func (s Store) Warnings(problems []Problem) []string {
	if len(problems) == 0 {
		return nil
	}
	lines := "1 unreadable line"
	if n := len(problems); n > 1 {
		lines = fmt.Sprintf("%d unreadable lines", n)
	}
	return []string{fmt.Sprintf("%s: %s skipped (first at line %d: %s); see: devrites-engine doctor",
		filepath.Join(filepath.Base(s.Dir), File), lines, problems[0].Line, problems[0].Text)}
}

// AddRequest is a claim to make; its paths and session are checked.
type AddRequest struct {
	Session string
	Paths   []string
	Reason  string
	TTL     int // minutes, clamped by ClampTTL
}

// Add claims paths for a session unless a live claim of another session
// holds one of them (a *HeldError, kind ErrHeld): the check and the
// append happen under the lock, so of two sessions claiming one path at
// once exactly one wins.
func (s Store) Add(ctx context.Context, r AddRequest) (Claim, error) {
	if err := CheckSession(r.Session); err != nil {
		return Claim{}, err
	}
	paths, err := Paths(r.Paths)
	if err != nil {
		return Claim{}, err
	}
	ttl, _ := ClampTTL(r.TTL)
	return s.append(ctx, func(set *Set, now time.Time) (Record, error) {
		if held := set.Held(paths, r.Session, now); len(held) > 0 {
			return Record{}, &HeldError{Holds: held}
		}
		at := now.UTC().Truncate(time.Second)
		return Record{ID: newID(set, now), Session: r.Session, Paths: paths, Reason: r.Reason,
			ClaimedAt: stamp(at), ExpiresAt: stamp(at.Add(time.Duration(ttl) * time.Minute))}, nil
	})
}

// Release releases the claim id of session: only its owner may, and a
// claim is released once; an expired claim can still be released.
func (s Store) Release(ctx context.Context, session, id string) (Claim, error) {
	return s.append(ctx, func(set *Set, now time.Time) (Record, error) {
		c, err := owned(set, session, id)
		if err != nil {
			return Record{}, err
		}
		rec := c.Record
		rec.Released = true
		return rec, nil
	})
}

// Renew extends the live claim id of session to ttl minutes from now
// (clamped by ClampTTL). An expired claim is not renewed: another session
// may have claimed its paths since.
func (s Store) Renew(ctx context.Context, session, id string, ttl int) (Claim, error) {
	ttl, _ = ClampTTL(ttl)
	return s.append(ctx, func(set *Set, now time.Time) (Record, error) {
		c, err := owned(set, session, id)
		if err != nil {
			return Record{}, err
		}
		if c.State(now) == Expired {
			return Record{}, &Error{Kind: ErrNotLive, Claim: c, msg: fmt.Sprintf("claim %s expired at %s", id, c.ExpiresAt)}
		}
		rec := c.Record
		rec.ExpiresAt = stamp(now.UTC().Truncate(time.Second).Add(time.Duration(ttl) * time.Minute))
		return rec, nil
	})
}

// owned is the claim id when session owns it and it is not released.
func owned(set *Set, session, id string) (*Claim, error) {
	if err := CheckSession(session); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, errorf(ErrUsage, "no claim id given")
	}
	c := set.Find(id)
	switch {
	case c == nil:
		return nil, errorf(ErrUnknown, "no claim %s", id)
	case c.Session != session:
		return nil, &Error{Kind: ErrNotOwner, Claim: c, msg: fmt.Sprintf("claim %s belongs to session %q, not %q", id, c.Session, session)}
	case c.Released:
		return nil, &Error{Kind: ErrNotLive, Claim: c, msg: fmt.Sprintf("claim %s is already released", id)}
	}
	return c, nil
}

// append runs decide on the claims under the lock and appends the record
// it returns; the claim returned is that record, at its line. decide runs
// first on the file read without the lock: what it refuses then is refused
// without waiting for the lock or creating the lock file, so that a
// refusal leaves the directory as it was.
func (s Store) append(ctx context.Context, decide func(*Set, time.Time) (Record, error)) (Claim, error) {
	if fi, err := os.Stat(s.Dir); err != nil || !fi.IsDir() {
		return Claim{}, mdstore.Errorf(mdstore.ErrNoWorkspace, "no .devrites directory at %s", s.Dir)
	}
	set, err := s.Read()
	if err != nil {
		return Claim{}, err
	}
	if _, err := decide(set, s.Now()); err != nil {
		return Claim{}, err
	}
	unlock, err := mdstore.Lock(ctx, filepath.Join(s.Dir, LockFile), "the claims file", s.LockTimeout)
	if err != nil {
		return Claim{}, err
	}
	defer unlock()
	if set, err = s.Read(); err != nil {
		return Claim{}, err
	}
	rec, err := decide(set, s.Now())
	if err != nil {
		return Claim{}, err
	}
	line, err := encode(rec)
	if err != nil {
		return Claim{}, err
	}
	if set.Unterminated { // a torn last line stays a line of its own
		line = append([]byte("\n"), line...)
	}
	created := set.Lines == 0 && !exists(s.Path())
	if err := appendFile(s.Path(), line); err != nil {
		return Claim{}, err
	}
	if created {
		// Claims belong to this tree, not to its clones. The claim is
		// made whatever happens here: a .gitignore that cannot be
		// written costs an untracked file, never a claim.
		_ = mdstore.Ignore(s.Dir, "claims of the sessions working in this tree (devrites-engine claim): never commit them", File, LockFile)
	}
	return Claim{Record: rec, Line: set.Lines + 1}, nil
}

// EndLastLine ends an unterminated last line with a line end, under the
// lock, so that a writer which does not start its record on a new line
// (DevRites) does not glue it to a torn one. It only appends; it reports
// whether it did.
func (s Store) EndLastLine(ctx context.Context) (bool, error) {
	unlock, err := mdstore.Lock(ctx, filepath.Join(s.Dir, LockFile), "the claims file", s.LockTimeout)
	if err != nil {
		return false, err
	}
	defer unlock()
	set, err := s.Read()
	if err != nil || !set.Unterminated {
		return false, err
	}
	return true, appendFile(s.Path(), []byte("\n"))
}

// encode is rec as one line of the file, with its line end.
func encode(rec Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// appendFile appends data to path in one write, with O_APPEND, and
// fsyncs it; a file it creates gets mode 0600 and a fsync of its directory.
func appendFile(path string, data []byte) error {
	created := !exists(path)
	f, err := mdstore.OpenRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	var nr *mdstore.NotRegularError
	if errors.As(err, &nr) {
		return notRegular(path)
	}
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = mdstore.SyncDir(filepath.Dir(path))
	}
	return err
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// newID is a fresh claim id, one no record of set has.
func newID(set *Set, now time.Time) string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		id := fmt.Sprintf("cl-%d-%08x", now.UnixNano(), binary.BigEndian.Uint32(b[:]))
		if set.Find(id) == nil {
			return id
		}
	}
}

func stamp(t time.Time) string { return qid.Timestamp(t) }
