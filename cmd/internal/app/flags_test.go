package app

import "testing"

// A flag's bad value is worded by its kind (-h is a boolean).
func TestFlagMessage(t *testing.T) {
	for msg, want := range map[string]string{
		`invalid boolean value "maybe" for -help: parse error`:     `--help "maybe": want true or false`,
		`invalid boolean value "maybe" for -quiet: parse error`:    `--quiet "maybe": want true or false`,
		`invalid value "soon" for flag -lock-timeout: parse error`: `--lock-timeout "soon": want a duration such as 10s or 2m`,
		`invalid value "x" for flag -nonesuch: parse error`:        `--nonesuch "x": want a valid value`,
	} {
		if got := flagMessage(msg); got != want {
			t.Errorf("%s: got %q, want %q", msg, got, want)
		}
	}
}
