package mdstore

import (
	"os"
	"path/filepath"
)

// renamePending is a temporary file that replaces its destination by
// os.Rename, which on Windows is MoveFileEx with MOVEFILE_REPLACE_EXISTING:
// the destination is replaced whole or not at all on NTFS, which Microsoft
// documents as a replacement but does not promise is atomic. renameio has
// no PendingFile there, and its maybe package writes in place. It is
// Windows' pendingFile; it builds everywhere so that its tests run on every
// system.
type renamePending struct {
	*os.File
	path   string
	closed bool
	done   bool
}

// newRenamePending creates the temporary file beside path, named as
// renameio names its own ("." + the name + digits), which IsTemp knows.
// Windows keeps only a read-only bit, so no permissions are applied.
func newRenamePending(path string) (*renamePending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"*")
	if err != nil {
		return nil, err
	}
	return &renamePending{File: f, path: path}, nil
}

// Cleanup closes and removes the temporary file, unless it has replaced
// its destination.
func (t *renamePending) Cleanup() error {
	if t.done {
		return nil
	}
	var cerr error
	if !t.closed {
		cerr = t.File.Close()
	}
	if err := os.Remove(t.Name()); err != nil {
		return err
	}
	t.done = true
	return cerr
}

// CloseAtomicallyReplace syncs and closes the temporary file and renames it
// over the destination.
func (t *renamePending) CloseAtomicallyReplace() error {
	if err := t.Sync(); err != nil {
		return err
	}
	t.closed = true
	if err := t.File.Close(); err != nil {
		return err
	}
	if err := os.Rename(t.Name(), t.path); err != nil {
		return err
	}
	t.done = true
	return nil
}
