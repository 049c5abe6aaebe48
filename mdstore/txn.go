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
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/renameio/v2"
)

// writeOrder is the order in which a transaction writes: questions.md is the
// source of truth and goes first; a crash after it is repaired by re-running
// the command or by doctor --fix.
var writeOrder = []string{QuestionsFile, StateFile, DecisionsFile}

// Tx is one read-change-write of a workspace under its lock.
type Tx struct {
	ws     *Workspace
	files  map[string]*txFile
	gates  []<-chan error // see Gate
	gated  error          // what the gates said
	mapped bool           // files are mapped, not copied (Workspace.Mapped)
}

type txFile struct {
	orig    []byte
	id      fileID // of orig, when it exists
	exists  bool
	data    []byte
	content Content // the new content when staged by WriteContent, else nil
	dirty   bool
	mapped  bool // orig is the file mapped into memory
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
	b, id, mapped, err := tx.ws.readFile(name, tx.mapped)
	f := &txFile{orig: b, id: id, data: b, exists: err == nil, mapped: mapped}
	if err != nil && !errors.Is(err, ErrMissing) {
		return nil, err
	}
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

// Gate makes the commit wait for a check, which sends its result on check,
// before it makes any change seen, and fail with the check's error, if
// any, having changed nothing: a check of the files as read can run while
// the new content is written to temporary files. A commit that writes
// nothing still waits for it and fails with its error.
func (tx *Tx) Gate(check <-chan error) { tx.gates = append(tx.gates, check) }

// Gated waits for the gates, and returns the first error one sent.
func (tx *Tx) Gated() error {
	for len(tx.gates) > 0 && tx.gated == nil {
		tx.gated = <-tx.gates[0]
		tx.gates = tx.gates[1:]
	}
	return tx.gated
}

// open reports whether a gate has not sent its result yet.
func (tx *Tx) open() bool {
	for len(tx.gates) > 0 && tx.gated == nil {
		select {
		case tx.gated = <-tx.gates[0]:
			tx.gates = tx.gates[1:]
		default:
			return true
		}
	}
	return false
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
// writing, every file to be written is checked again (unchangedOnDisk), and
// if a writer that does not take the lock (a person in an editor) changed
// it, fn runs again
// from the start on the new content. So fn keeps nothing from one run to
// the next, and its result reaches the caller only from the run whose
// writes were committed.
func Transact[T any](ctx context.Context, ws *Workspace, timeout time.Duration, fn func(*Tx) (T, error)) (T, error) {
	var zero T
	unlock, err := ws.lock(ctx, timeout)
	if err != nil {
		return zero, err
	}
	defer unlock()
	fine := fineTimes(ws.Dir)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		tx := &Tx{ws: ws, files: map[string]*txFile{}, mapped: ws.Mapped && fine}
		v, err := fn(tx)
		if err != nil {
			return zero, err
		}
		if !tx.unchangedOnDisk(fine) {
			continue
		}
		done, err := tx.commit(fine)
		if err != nil {
			return zero, err
		}
		if done {
			return v, nil
		}
	}
	return zero, fmt.Errorf("%s: files kept changing while locked; is another program rewriting them?", ws.Dir)
}

// unchangedOnDisk reports whether every file to be written is still as it
// was read. Where the file system gives every write after a stat a new
// change time (fine, see fineTimes), a file whose identity (device, inode,
// size, modification and change times) is the one read was not written
// since: the read's fstat was such a stat. Elsewhere, and whenever the
// identity differs, the file is read again and compared, so that a touch or
// a rewrite with the same bytes is not taken for a change.
func (tx *Tx) unchangedOnDisk(fine bool) bool {
	for name, f := range tx.files {
		if !f.dirty {
			continue
		}
		path := tx.ws.Path(name)
		if fi, err := os.Lstat(path); fine && err == nil && f.exists && fi.Mode().IsRegular() && idOf(fi) == f.id {
			continue
		}
		// A mapped file shows what is on disk now: comparing it with the
		// disk would find no change.
		if f.mapped || !sameOnDisk(path, f.exists, f.orig) {
			return false
		}
	}
	return true
}

// fileID is what a write or a replacement of a file changes (idOf).
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
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

// commit writes the staged files in writeOrder, and reports whether it
// did. The files kept as lines (WriteContent) go first to temporary files,
// all of them before any rename. A file that was mapped (see Workspace.Mapped)
// is copied from the mapping, so its identity is checked again once they
// are written: a write in place by another program since the check before
// the commit makes it report false, having changed nothing, and the
// transaction runs again.
func (tx *Tx) commit(fine bool) (bool, error) {
	names := append([]string(nil), writeOrder...)
	for name := range tx.files {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	pending := make([]*renameio.PendingFile, len(names))
	defer func() {
		for _, t := range pending {
			if t != nil {
				_ = t.Cleanup() // nothing to do for one renamed
			}
		}
	}()
	mapped := false
	for i, name := range names {
		f := tx.files[name]
		if f == nil || !f.dirty {
			continue
		}
		mapped = mapped || f.mapped // what is written may come from the mapping
		if f.content != nil {
			t, err := prepare(tx.ws.Path(name), f.content.WriteTo)
			if err != nil {
				return false, err
			}
			pending[i] = t
		}
	}
	if mapped && !tx.unchangedOnDisk(fine) {
		return false, nil
	}
	// While a gate's check still runs, the temporary files are synced:
	// that is what it has time for (renameio syncs again before the
	// rename, and then finds nothing to write).
	for _, t := range pending {
		if t != nil && tx.open() {
			if err := t.Sync(); err != nil {
				return false, err
			}
		}
	}
	if err := tx.Gated(); err != nil {
		return false, err
	}
	for i, name := range names {
		f := tx.files[name]
		switch {
		case f == nil || !f.dirty:
			continue
		case pending[i] != nil:
			if err := replace(tx.ws.Path(name), pending[i]); err != nil {
				return false, err
			}
			continue
		case name == DecisionsFile && f.exists:
			done, err := appendInPage(tx.ws.Path(name), f.orig, f.data)
			if err != nil {
				return false, err
			}
			if done {
				continue
			}
		}
		if err := WriteAtomic(tx.ws.Path(name), f.data); err != nil {
			return false, err
		}
	}
	return true, nil
}

// appendInPage writes data over orig by appending what data adds, with one
// write(2) and fsync, when data is orig with more after it and the addition
// fits in the page where orig ends. It reports whether it did. An append
// within one page cannot be torn, even by SIGKILL: the kernel copies a
// write into the page cache a page at a time, and a fatal signal stops it
// only between pages. Any other change goes through WriteAtomic. decisions.md
// is the log SPEC §12's floor appends to; an entry is a few hundred bytes.
func appendInPage(path string, orig, data []byte) (bool, error) {
	add := len(data) - len(orig)
	page := os.Getpagesize()
	if add <= 0 || add > page-len(orig)%page || !bytes.HasPrefix(data, orig) {
		return false, nil
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, nil // read-only, say: a rename needs only the directory
	}
	defer fh.Close()
	if fi, err := fh.Stat(); err != nil || fi.Size() != int64(len(orig)) || !fi.Mode().IsRegular() {
		return false, nil // not the file that was read: replaced whole instead
	}
	if _, err := fh.Write(data[len(orig):]); err != nil {
		// A full disk, say: what may have gone in is taken out again, and
		// the rename tries (and says why it cannot either).
		_ = fh.Truncate(int64(len(orig)))
		return false, nil
	}
	return true, fh.Sync()
}

// WriteAtomic replaces path with data: a temporary file in the same
// directory, fsync, rename, fsync of the directory. The file keeps its
// permissions; a path that exists and is not a regular file is refused.
func WriteAtomic(path string, data []byte) error {
	t, err := prepare(path, func(w io.Writer) (int64, error) {
		n, err := w.Write(data)
		return int64(n), err
	})
	if err != nil {
		return err
	}
	defer t.Cleanup()
	return replace(path, t)
}

// prepare is the first half of WriteAtomic, for what write writes: the
// temporary file, written. A failure leaves no file behind, nor does a
// fault on a mapped file cut short under it (a panic that Catch turns into
// an error); a write(2) that meets one returns EFAULT instead, which is
// that same error.
func prepare(path string, write func(io.Writer) (int64, error)) (*renameio.PendingFile, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, Errorf(ErrMalformed, "%s: not a regular file", path)
	}
	// The temporary file goes in the same directory: renameio would otherwise
	// probe $TMPDIR with a test rename on every write, and leave temporary
	// files where doctor does not look.
	t, err := renameio.NewPendingFile(path, renameio.WithPermissions(0o644), renameio.WithExistingPermissions(),
		renameio.WithTempDir(filepath.Dir(path)))
	if err != nil {
		return nil, err
	}
	written := false
	defer func() {
		if !written {
			_ = t.Cleanup()
		}
	}()
	if _, err := write(t); err != nil {
		return nil, faulted(path, err)
	}
	written = true
	return t, nil
}

// replace is the second half: fsync, rename and the fsync of the
// directory.
func replace(path string, t *renameio.PendingFile) error {
	if err := t.CloseAtomicallyReplace(); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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

// LockHolder returns the pid holding the workspace lock, from /proc/locks
// where the system has it, or 0 when it is not known or not held.
func LockHolder(ws *Workspace) int { return lockHolder(ws.Path(LockFile)) }

// lockHolder returns the pid holding the flock on path, or 0.
func lockHolder(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	suffix := ":" + strconv.FormatUint(st.Ino, 10)
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		// 1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
		if len(f) >= 6 && f[1] == "FLOCK" && strings.HasSuffix(f[5], suffix) {
			pid, _ := strconv.Atoi(f[4])
			return pid
		}
	}
	return 0
}

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
