package mdstore

import "os"

// pendingFile replaces its destination by os.Rename (renamePending).
type pendingFile = renamePending

func newPending(path string, _ os.FileMode) (*pendingFile, error) { return newRenamePending(path) }

// SyncDir does nothing: Windows cannot open a directory for FlushFileBuffers,
// and NTFS journals the rename itself.
func SyncDir(string) error { return nil }
