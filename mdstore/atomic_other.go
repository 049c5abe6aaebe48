//go:build !windows

package mdstore

import (
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// pendingFile is a temporary file that replaces its destination by
// rename(2), which is atomic on a local file system.
type pendingFile = renameio.PendingFile

// newPending creates the temporary file beside path (where renameio would
// otherwise probe $TMPDIR with a test rename on every write), with path's
// permissions, else perm.
func newPending(path string, perm os.FileMode) (*pendingFile, error) {
	return renameio.NewPendingFile(path, renameio.WithPermissions(perm), renameio.WithExistingPermissions(),
		renameio.WithTempDir(filepath.Dir(path)))
}

// SyncDir makes a rename or a new file in dir durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
