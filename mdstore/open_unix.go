//go:build unix

package mdstore

import (
	"os"
	"syscall"
)

// openNoFollow opens path with flag, refusing a symbolic link at its end
// (O_NOFOLLOW: ELOOP) and never waiting on a named pipe (O_NONBLOCK: an
// open for writing with no reader fails with ENXIO, one for reading
// returns at once, and the fstat that follows refuses it). O_NONBLOCK does
// nothing to a regular file's reads and writes.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, perm)
}
