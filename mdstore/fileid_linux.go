package mdstore

import (
	"io/fs"
	"strconv"
	"strings"
	"syscall"
)

func idOf(fi fs.FileInfo) fileID {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{size: -1} // never equal to a file's: the bytes are compared
	}
	return fileID{dev: st.Dev, ino: st.Ino, size: fi.Size(), mtime: st.Mtim, ctime: st.Ctim}
}

// fineTimes reports whether the file system holding dir gives a write that
// follows a stat a change time of its own, however soon it comes: Linux's
// fine-grained timestamps, since 6.13, on ext4, xfs, btrfs and tmpfs.
// Elsewhere a write can keep the time of the one before it, up to a clock
// tick (a few milliseconds) or more on some file systems, and a rewrite of
// the same size in that tick would look like no write at all.
func fineTimes(dir string) bool {
	var u syscall.Utsname
	var st syscall.Statfs_t
	if syscall.Uname(&u) != nil || !kernelAtLeast(utsString(u.Release[:]), 6, 13) || syscall.Statfs(dir, &st) != nil {
		return false
	}
	switch uint32(st.Type) { // int64, int32 or uint32, by architecture
	case 0xEF53, 0x58465342, 0x9123683E, 0x01021994: // ext2/3/4, xfs, btrfs, tmpfs
		return true
	}
	return false
}

// utsString is a NUL-terminated field of Utsname: int8 or uint8, by
// architecture.
func utsString[T int8 | uint8](b []T) string {
	var s strings.Builder
	for _, c := range b {
		if c == 0 {
			break
		}
		s.WriteByte(byte(c))
	}
	return s.String()
}

// kernelAtLeast reports whether a kernel release such as "6.18.44-fc" is
// major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr := parts[1]
	if i := strings.IndexFunc(mnr, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		mnr = mnr[:i]
	}
	mn, err2 := strconv.Atoi(mnr)
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || maj == major && mn >= minor
}
