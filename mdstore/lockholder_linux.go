package mdstore

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockHolder returns the pid holding the flock on path, from /proc/locks,
// or 0.
func lockHolder(path string) int {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	b, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	suffix := ":" + strconv.FormatUint(st.Ino, 10)
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		// 1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF
		if len(f) >= 6 && f[1] == "FLOCK" && strings.HasSuffix(f[5], suffix) {
			pid, _ := strconv.Atoi(f[4])
			return pid
		}
	}
	return 0
}
