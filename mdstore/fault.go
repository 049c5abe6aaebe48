package mdstore

import (
	"errors"
	"os"
	"runtime/debug"
	"sync"
	"syscall"
	"unsafe"
)

// A mapped file (Workspace.Mapped) that another program cuts short in place
// while a command reads it faults (SIGBUS) at the first page past its new
// end. Catch and Go turn such a fault into an error of kind ErrBusy that
// names the file, where the runtime would otherwise end the process.

// mappings are the files mapped into memory, never unmapped, so that a
// fault's address tells which file it was in.
var mappings struct {
	sync.Mutex
	list []mapping
}

// pageSize is the size of a page, which a fault's address falls in.
var pageSize = uintptr(os.Getpagesize())

type mapping struct {
	lo, hi uintptr
	path   string
}

func addMapping(b []byte, path string) {
	mappings.Lock()
	defer mappings.Unlock()
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	mappings.list = append(mappings.list, mapping{lo, lo + uintptr(len(b)), path})
}

// cutShort returns the error for r, a recovered panic, when it is a fault
// in a mapped file's memory, else nil.
func cutShort(r any) error {
	f, ok := r.(interface{ Addr() uintptr })
	if !ok {
		return nil
	}
	addr := f.Addr()
	mappings.Lock()
	defer mappings.Unlock()
	for _, m := range mappings.list {
		// A fault lands on the page past the file's new end, which may be
		// the one after the mapping's last byte.
		if addr >= m.lo && addr < m.hi+pageSize {
			return cutShortErr(m.path)
		}
	}
	return nil
}

// faulted is err, or the error of path cut short when err is EFAULT: what
// write(2) returns when the bytes it is given are a mapping's pages past
// the end of a file that was cut short.
func faulted(path string, err error) error {
	if errors.Is(err, syscall.EFAULT) {
		return cutShortErr(path)
	}
	return err
}

func cutShortErr(path string) error {
	return WithHint(Errorf(ErrBusy, "%s: cut short while it was read: another program rewrote it in place", path),
		"nothing more was written; run the command again")
}

// Catch runs f with faults turned into panics, and returns the error of
// one in a mapped file's memory instead of crashing. Other panics go on.
func Catch(f func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if err = cutShort(r); err == nil {
				panic(r)
			}
		}
	}()
	f()
	return nil
}

// Go runs f in a goroutine with faults turned into panics, and returns
// the function that waits for it. That function panics, in its caller's
// goroutine, with whatever f panicked with: a fault in a mapped file's
// memory reaches the goroutine that started f, and in the end a Catch.
func Go(f func()) (wait func()) {
	done := make(chan any, 1)
	go func() {
		debug.SetPanicOnFault(true)
		defer func() { done <- recover() }()
		f()
	}()
	return func() {
		if r := <-done; r != nil {
			panic(r)
		}
	}
}
