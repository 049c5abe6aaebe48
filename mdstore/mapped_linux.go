package mdstore

import (
	"os"
	"syscall"
)

// mapMin is the size from which a file is mapped rather than read: below
// it, a copy costs no more than the mapping.
const mapMin = 64 << 10

// mapFile maps f's size bytes into memory, read-only, or reports false.
func mapFile(f *os.File, size int64) ([]byte, bool) {
	if size < mapMin || int64(int(size)) != size {
		return nil, false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	var b []byte
	var merr error
	if err := rc.Control(func(fd uintptr) {
		b, merr = syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	}); err != nil || merr != nil {
		return nil, false
	}
	addMapping(b, f.Name())
	return b, true
}
