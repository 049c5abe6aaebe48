package trust

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gofrs/flock"

	"github.com/devrites/devrites-engine/machine"
	"github.com/devrites/devrites-engine/mdstore"
)

// Verdict is what the store says of a file's content.
type Verdict int

const (
	// Untrusted: the file was never trusted on this machine (or its trust
	// was revoked).
	Untrusted Verdict = iota
	// Changed: the file was trusted, with other content.
	Changed
	// Trusted: the content is the content a person trusted here.
	Trusted
)

func (v Verdict) String() string {
	switch v {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed since it was trusted"
	}
	return "not trusted"
}

// Entry is one trusted file.
type Entry struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// ErrNotTrusted is the error of revoking a file that is not in the store.
var ErrNotTrusted = errors.New("not trusted")

// Store is a trust file.
type Store struct {
	path string
}

// At is the store kept in file.
func At(file string) *Store { return &Store{path: file} }

// Open is this machine's store: $XDG_CONFIG_HOME/devrites-engine/trust,
// else $HOME/.config/devrites-engine/trust. It reads nothing yet.
func Open() (*Store, error) {
	dir, err := machine.Dir()
	if err != nil { // machine.ErrNoHome, its one error
		return nil, fmt.Errorf("%w, so there is no trust store", machine.ErrNoHome)
	}
	return At(filepath.Join(dir, "trust")), nil
}

// Path is the file the store is kept in.
func (s *Store) Path() string { return s.path }

// Check reads the file at path and verifies its content: this machine's
// store, for callers that act on what they read later (prefer Verify with
// the bytes acted on).
func Check(path string) (Verdict, error) {
	s, err := Open()
	if err != nil {
		return Untrusted, err
	}
	return s.Check(path)
}

// Check reads the file at path and verifies its content.
func (s *Store) Check(path string) (Verdict, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Untrusted, err
	}
	return s.Verify(path, b)
}

// Verify says whether content, read from path, is what a person trusted
// for that path. An error (the store cannot be read) comes with Untrusted.
func (s *Store) Verify(path string, content []byte) (Verdict, error) {
	key, err := Key(path)
	if err != nil {
		return Untrusted, err
	}
	entries, err := s.read()
	if err != nil {
		return Untrusted, err
	}
	i := slices.IndexFunc(entries, func(e Entry) bool { return e.Path == key })
	switch {
	case i < 0:
		return Untrusted, nil
	case entries[i].SHA256 != Sum(content):
		return Changed, nil
	}
	return Trusted, nil
}

// Sum is the SHA-256 of content in hex, as the store keeps it.
func Sum(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// Key is the name the store knows path by: absolute, with its symbolic
// links resolved when it exists.
func Key(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if strings.ContainsAny(abs, "\n\r") {
		return "", fmt.Errorf("%q: a path with a line break cannot be trusted", abs)
	}
	return abs, nil
}

// Trust reads the file at path and trusts its current content.
func (s *Store) Trust(path string) (Entry, error) {
	fi, err := os.Stat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("%s: not a regular file", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Entry{}, err
	}
	return s.Add(path, b)
}

// Add trusts content for path (the bytes a command just wrote there),
// replacing what the store held for it.
func (s *Store) Add(path string, content []byte) (Entry, error) {
	key, err := Key(path)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Path: key, SHA256: Sum(content)}
	err = s.edit(func(entries []Entry) ([]Entry, error) {
		entries = slices.DeleteFunc(entries, func(x Entry) bool { return x.Path == key })
		return append(entries, e), nil
	})
	return e, err
}

// Revoke forgets path; ErrNotTrusted when the store does not hold it.
func (s *Store) Revoke(path string) (Entry, error) {
	key, err := Key(path)
	if err != nil {
		return Entry{}, err
	}
	var gone Entry
	err = s.edit(func(entries []Entry) ([]Entry, error) {
		i := slices.IndexFunc(entries, func(x Entry) bool { return x.Path == key })
		if i < 0 {
			return nil, fmt.Errorf("%s: %w", key, ErrNotTrusted)
		}
		gone = entries[i]
		return slices.Delete(entries, i, i+1), nil
	})
	return gone, err
}

// List is every trusted file, in the order they were trusted.
func (s *Store) List() ([]Entry, error) { return s.read() }

// read parses the store; a missing store is empty. Lines that do not
// parse are skipped: they grant nothing.
func (s *Store) read() ([]Entry, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return []Entry{}, nil
	}
	if err != nil {
		return nil, err
	}
	entries := []Entry{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != sha256.Size*2 || !filepath.IsAbs(path) {
			continue
		}
		if _, err := hex.DecodeString(sum); err != nil {
			continue
		}
		entries = append(entries, Entry{Path: path, SHA256: sum})
	}
	return entries, sc.Err()
}

// edit changes the store under its lock: the store is read again, change
// is applied, and the result replaces the store atomically (mode 0600).
// When change fails, nothing is written.
func (s *Store) edit(change func([]Entry) ([]Entry, error)) error {
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	lock := flock.New(s.path + ".lock")
	if err := lock.Lock(); err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	entries, err := s.read()
	if err != nil {
		return err
	}
	entries, err = change(entries)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.SHA256 + "  " + e.Path + "\n")
	}
	return mdstore.WriteAtomicPerm(s.path, []byte(b.String()), 0o600)
}

// Command is the command that trusts the file at path, as a person types
// it.
func Command(path string) string { return "devrites-engine trust " + quote(path) }

// quote quotes s for sh when it needs it.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-:@%=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
