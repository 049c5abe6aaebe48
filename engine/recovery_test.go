package engine

import (
	"errors"
	"strings"
	"testing"
)

func TestFailure(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Failure
		want string // the error's text, or the fingerprint
	}{
		{"plain", Failure{"make test", 2, "FAIL: TestX"}, "09b7aa18d132"},
		{"line ending dropped", Failure{"make test", 2, "FAIL: TestX\r\n"}, "09b7aa18d132"},
		{"no stderr", Failure{"x", 0, ""}, "d7b3082b8861"},
		{"empty command", Failure{" ", 1, "x"}, "--command is empty"},
		{"command on two lines", Failure{"a\nb", 1, "x"}, "--command has a line break"},
		{"two stderr lines", Failure{"a", 1, "x\ny"}, "--stderr-line has a line break"},
		{"exit too big", Failure{"a", 256, "x"}, "--exit 256 is not an exit code from 0 to 255"},
		{"exit negative", Failure{"a", -1, "x"}, "--exit -1 is not an exit code"},
		{"invalid UTF-8", Failure{"a\xff", 1, "x"}, "not valid UTF-8"},
		{"NUL", Failure{"a", 1, "x\x00"}, "NUL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fp, err := tc.f.Fingerprint()
			switch {
			case err != nil && (!errors.Is(err, ErrBadArgs) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want bad arguments: %s", err, tc.want)
			case err == nil && fp != tc.want:
				t.Errorf("got %s, want %s", fp, tc.want)
			}
		})
	}
	if got := (Failure{"cmd", 5, ""}).text(); got != "`cmd` exited 5 with no stderr line" {
		t.Errorf("text without a stderr line: got %q", got)
	}
}
