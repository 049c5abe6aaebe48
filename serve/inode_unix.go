//go:build unix

package serve

import (
	"io/fs"
	"syscall"
)

// inode is fi's inode number, which every rename of a new file changes.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino) // uint32 on some systems
	}
	return 0
}
