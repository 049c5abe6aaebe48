package mdstore

import (
	"os"
	"syscall"
	"unsafe"
)

// mapMin is the size from which a file is mapped rather than read: below
// it, a copy costs no more than the mapping.
const mapMin = 64 << 10

// mapFile maps f's size bytes into memory, or reports false. The mapping
// is private: what is written into it stays in this process, so the rest of
// its last page is spare room, as AppendRecord takes it, for the entry an
// append adds.
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
		b, merr = syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	}); err != nil || merr != nil {
		return nil, false
	}
	addMapping(b, f.Name())
	room := (len(b) + int(pageSize) - 1) &^ (int(pageSize) - 1)
	return unsafe.Slice(unsafe.SliceData(b), room)[:len(b)], true
}
