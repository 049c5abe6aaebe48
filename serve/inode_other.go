//go:build !unix

package serve

import "io/fs"

// inode is 0: the stamp has the size and the modification time (to 100 ns
// on NTFS) to go by.
func inode(fs.FileInfo) uint64 { return 0 }
