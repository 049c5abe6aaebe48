//go:build !unix

package mdstore

import "os"

// openNoFollow opens path with flag once an lstat has found no symbolic
// link or other non-regular file there. Windows has no O_NOFOLLOW: a link
// put there between the lstat and the open is followed, which is the one
// thing this cannot promise there. Named pipes on Windows live in their own
// namespace (\\.\pipe\), never in a directory, so an open cannot block on
// one.
func openNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	return openAfterLstat(path, flag, perm)
}
