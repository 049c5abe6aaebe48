//go:build unix

package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe is refused by the lstat, before an open could wait on it.
func TestOpenAfterLstatRefusesPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "notify.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	var nr *NotRegularError
	if _, err := openAfterLstat(fifo, os.O_WRONLY|os.O_APPEND, 0); !errors.As(err, &nr) {
		t.Errorf("got %v, want a NotRegularError", err)
	}
}
