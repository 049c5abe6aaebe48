//go:build unix

package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// OpenRegular never follows a symbolic link at the end of the path, and
// never waits on a named pipe, for reading or for writing; neither is
// written through.
func TestOpenRegularLinkAndFIFO(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, want string
		flag       int
	}{
		{link, "a symbolic link", os.O_WRONLY | os.O_APPEND | os.O_CREATE},
		{link, "a symbolic link", os.O_RDONLY},
		{fifo, "a named pipe", os.O_WRONLY | os.O_APPEND | os.O_CREATE},
		{fifo, "a named pipe", os.O_RDONLY},
	} {
		done := make(chan error, 1)
		go func() {
			f, err := OpenRegular(tc.path, tc.flag, 0o644)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Type != tc.want {
				t.Errorf("%s (flag %#x): got %v, want a *NotRegularError for %s", filepath.Base(tc.path), tc.flag, err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s (flag %#x): OpenRegular blocked", filepath.Base(tc.path), tc.flag)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target became %q", b)
	}
}
