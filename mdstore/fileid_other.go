//go:build !linux

package mdstore

import "io/fs"

// idOf is of no use where fineTimes is false: every file is compared byte
// for byte before a write.
func idOf(fs.FileInfo) fileID { return fileID{size: -1} }

func fineTimes(string) bool { return false }
