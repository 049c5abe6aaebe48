package mdstore

import "os"

// openAfterLstat opens path with flag once an lstat has found no symbolic
// link or other non-regular file there (a missing file is left to the
// open). It is openNoFollow where the system has no O_NOFOLLOW; it builds
// everywhere so that its tests run on every system.
func openAfterLstat(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Type: FileType(fi.Mode())}
	}
	return os.OpenFile(path, flag, perm)
}
