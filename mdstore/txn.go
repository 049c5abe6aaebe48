package mdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// writeOrder is the order in which a transaction writes: questions.md is the
// source of truth and goes first; a crash after it is repaired by re-running
// the command or by doctor --fix.
var writeOrder = []string{QuestionsFile, StateFile, DecisionsFile}

// Tx is one read-change-write of a workspace under its lock.
type Tx struct {
	ws    *Workspace
	files map[string]*txFile
}

type txFile struct {
	orig    []byte // as read; nil when the file did not exist
	exists  bool
	data    []byte
	content Content // the new content when staged by WriteContent, else nil
	dirty   bool
}

// Content is a file's new content as Questions and State hold it: lines,
// written out at commit without a copy of the whole file.
type Content interface {
	io.WriterTo
	Equal(b []byte) bool // reports whether the content is exactly b
}

// Read returns a file's content as of the start of the transaction, or as
// last written in it. A missing file is ErrMissing.
func (tx *Tx) Read(name string) ([]byte, error) {
	f, err := tx.file(name)
	if err != nil {
		return nil, err
	}
	if !f.exists && !f.dirty {
		return nil, Errorf(ErrMissing, "%s: missing", tx.ws.Path(name)).Fix(RunDoctor, "")
	}
	return f.bytes(), nil
}

// bytes returns the file's content as last written in the transaction.
func (f *txFile) bytes() []byte {
	if f.content != nil {
		var b bytes.Buffer
		_, _ = f.content.WriteTo(&b) // a bytes.Buffer takes every write
		f.data, f.content = b.Bytes(), nil
	}
	return f.data
}

// ReadOptional is Read for a file that may be absent.
func (tx *Tx) ReadOptional(name string) ([]byte, bool, error) {
	f, err := tx.file(name)
	if err != nil {
		return nil, false, err
	}
	return f.bytes(), f.exists || f.dirty, nil
}

func (tx *Tx) file(name string) (*txFile, error) {
	if f, ok := tx.files[name]; ok {
		return f, nil
	}
	b, err := tx.ws.ReadFile(name)
	if err != nil && !errors.Is(err, ErrMissing) {
		return nil, err
	}
	f := &txFile{orig: b, data: b, exists: err == nil}
	tx.files[name] = f
	return f, nil
}

// Write stages new content for a file; it is written when the transaction
// function returns without error. Writing unchanged bytes writes nothing.
func (tx *Tx) Write(name string, data []byte) {
	f := tx.staged(name)
	f.data, f.content = data, nil
	f.dirty = !f.exists || !bytes.Equal(data, f.orig)
}

// WriteContent is Write for content kept as lines: it is written out at
// commit, and not copied whole before.
func (tx *Tx) WriteContent(name string, c Content) {
	f := tx.staged(name)
	f.data, f.content = nil, c
	f.dirty = !f.exists || !c.Equal(f.orig)
}

// staged is the file to stage new content for: as read, or new when it
// could not be read.
func (tx *Tx) staged(name string) *txFile {
	f, _ := tx.file(name)
	if f == nil {
		f = &txFile{}
		tx.files[name] = f
	}
	return f
}

// maxAttempts bounds the retries when files change under the lock.
const maxAttempts = 20

// Transact holds the workspace lock (waiting up to timeout), runs fn, and
// writes the files fn staged, each atomically, in writeOrder; it returns
// what fn returned.
//
// fn must be a function of what it reads through tx alone: just before
// writing, every file to be written is read again and compared with what
// was read (unchangedOnDisk), and if a writer that does not take the lock
// (a person in an editor) changed it, fn runs again from the start on the
// new content. So fn keeps nothing from one run to the next, and its
// result reaches the caller only from the run whose writes were committed.
func Transact[T any](ctx context.Context, ws *Workspace, timeout time.Duration, fn func(*Tx) (T, error)) (T, error) {
	var zero T
	unlock, err := ws.lock(ctx, timeout)
	if err != nil {
		return zero, err
	}
	defer unlock()
	for attempt := 0; attempt < maxAttempts; attempt++ {
		tx := &Tx{ws: ws, files: map[string]*txFile{}}
		v, err := fn(tx)
		if err != nil {
			return zero, err
		}
		if !tx.unchangedOnDisk() {
			continue
		}
		if err := tx.commit(); err != nil {
			return zero, err
		}
		return v, nil
	}
	return zero, fmt.Errorf("%s: files kept changing while locked; is another program rewriting them?", ws.Dir)
}

// unchangedOnDisk reports whether every file to be written still holds the
// bytes read (a touch, or a rewrite with the same bytes, is no change).
func (tx *Tx) unchangedOnDisk() bool {
	for name, f := range tx.files {
		if f.dirty && !sameOnDisk(tx.ws.Path(name), f.exists, f.orig) {
			return false
		}
	}
	return true
}

// sameOnDisk reports whether the file at path still exists as it did and
// holds exactly want. It reads in small pieces: a copy of a large file
// would only be thrown away.
func sameOnDisk(path string, existed bool, want []byte) bool {
	fi, err := os.Lstat(path)
	if err != nil || !existed {
		return err != nil && !existed
	}
	if !fi.Mode().IsRegular() || fi.Size() != int64(len(want)) {
		return false
	}
	fh, err := os.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	buf := make([]byte, 64<<10)
	for off := 0; ; {
		n, err := fh.Read(buf)
		if n > 0 {
			if off+n > len(want) || !bytes.Equal(buf[:n], want[off:off+n]) {
				return false
			}
			off += n
		}
		if err == io.EOF {
			return off == len(want)
		}
		if err != nil {
			return false
		}
	}
}

// commit writes the staged files: first each to its temporary file, all of
// them before any rename, so that a failure to write one (a full disk)
// changes nothing; then it renames them in writeOrder.
func (tx *Tx) commit() error {
	names := append([]string(nil), writeOrder...)
	for name := range tx.files {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	pending := make([]*pendingFile, len(names))
	defer func() {
		for _, t := range pending {
			if t != nil {
				_ = t.Cleanup() // nothing to do for one renamed
			}
		}
	}()
	for i, name := range names {
		f := tx.files[name]
		if f == nil || !f.dirty {
			continue
		}
		write := f.content
		if write == nil {
			write = bytesContent(f.data)
		}
		t, err := prepare(tx.ws.Path(name), 0o644, write.WriteTo)
		if err != nil {
			return err
		}
		pending[i] = t
	}
	for i, t := range pending {
		if t != nil {
			if err := replace(tx.ws.Path(names[i]), t); err != nil {
				return err
			}
		}
	}
	return nil
}

// bytesContent is staged bytes written out as Content is.
type bytesContent []byte

func (b bytesContent) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}

func (b bytesContent) Equal(c []byte) bool { return bytes.Equal(b, c) }

// WriteAtomic replaces path with data: a temporary file in the same
// directory, fsync, rename, fsync of the directory. The file keeps its
// permissions (a new one gets 0644); a path that exists and is not a
// regular file is refused.
func WriteAtomic(path string, data []byte) error { return WriteAtomicPerm(path, data, 0o644) }

// WriteAtomicPerm is WriteAtomic for a file that, when new, gets perm.
func WriteAtomicPerm(path string, data []byte, perm fs.FileMode) error {
	t, err := prepare(path, perm, bytesContent(data).WriteTo)
	if err != nil {
		return err
	}
	defer t.Cleanup()
	return replace(path, t)
}

// prepare is the first half of WriteAtomic, for what write writes: the
// temporary file, written. A failure leaves no file behind.
func prepare(path string, perm fs.FileMode, write func(io.Writer) (int64, error)) (*pendingFile, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, Errorf(ErrMalformed, "%s: not a regular file", path)
	}
	// The temporary file goes in the same directory, where the rename
	// cannot cross file systems and doctor finds what a kill leaves.
	t, err := newPending(path, perm)
	if err != nil {
		return nil, err
	}
	if _, err := write(t); err != nil {
		_ = t.Cleanup()
		return nil, err
	}
	return t, nil
}

// replace is the second half: fsync, rename and the fsync of the
// directory.
func replace(path string, t *pendingFile) error {
	if err := t.CloseAtomicallyReplace(); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
}

// lock takes the workspace's exclusive flock on .lock, waiting until timeout.
func (ws *Workspace) lock(ctx context.Context, timeout time.Duration) (func(), error) {
	return Lock(ctx, ws.Path(LockFile), "the workspace", timeout)
}

// Lock takes an exclusive flock on path, waiting until timeout, and returns
// the function that releases it. The lock file is created empty and never
// written or deleted. what names what the lock guards in the error when
// another process holds it (an error of kind ErrBusy).
func Lock(ctx context.Context, path, what string, timeout time.Duration) (func(), error) {
	fl := flock.New(path)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ok, err := fl.TryLock()
	if !ok && err == nil {
		ok, err = waitLock(ctx, fl)
	}
	if !ok {
		if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s: cannot take the lock: %s", pe.Path, pe.Err)
			}
			return nil, fmt.Errorf("%s: cannot take the lock: %w", path, err)
		}
		holder := "another process"
		if pid := lockHolder(path); pid > 0 {
			holder = "pid " + strconv.Itoa(pid)
		}
		return nil, WithHint(Errorf(ErrBusy, "%s: %s is locked by %s", path, what, holder),
			"retry, or raise --lock-timeout (now "+timeout.String()+")")
	}
	return func() { _ = fl.Unlock() }, nil
}

// waitLock blocks in flock(2) until the lock is free or ctx ends. The kernel
// wakes a waiter when the lock is released, where polling would keep every
// waiting process busy and starve the holder (two hundred waiters on two
// cores took minutes instead of seconds). A lock obtained after ctx ended is
// released at once.
func waitLock(ctx context.Context, fl *flock.Flock) (bool, error) {
	done := make(chan error, 1)
	go func() { done <- fl.Lock() }()
	select {
	case err := <-done:
		return err == nil, err
	case <-ctx.Done():
		go func() {
			if <-done == nil {
				_ = fl.Unlock()
			}
		}()
		return false, ctx.Err()
	}
}

// LockHolder returns the pid holding the workspace lock where the system
// tells (Linux's /proc/locks), or 0 when it is not known or not held.
func LockHolder(ws *Workspace) int { return lockHolder(ws.Path(LockFile)) }

// IsTemp reports whether a file name is one of the temporary files an atomic
// write of a workspace file (the three of a transaction, or the recovery
// ledger) leaves behind when it is killed before its rename.
func IsTemp(name string) bool {
	for _, f := range append(writeOrder[:len(writeOrder):len(writeOrder)], RecoveryFile) {
		if rest, ok := strings.CutPrefix(name, "."+f); ok && rest != "" {
			if _, err := strconv.ParseUint(rest, 10, 64); err == nil {
				return true
			}
		}
	}
	return false
}
