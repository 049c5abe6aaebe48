//go:build !unix

package scripttest

import "errors"

// makeFIFO fails: named pipes on Windows are not files in a directory.
func makeFIFO(string) error { return errors.New("mkfifo: no named pipes in the file system here") }
