package mdstore

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

func TestErrorKindAndMessage(t *testing.T) {
	cause := errors.New("disk on fire")
	err := Errorf(ErrMalformed, "state.md:3: %w", cause).Hint("fix it")
	if got, want := err.Error(), "state.md:3: disk on fire"; got != want {
		t.Errorf("message: got %q, want %q (a kind's words never trail it)", got, want)
	}
	if !errors.Is(err, ErrMalformed) || !errors.Is(err, cause) {
		t.Errorf("errors.Is: got kind %v, cause %v, want both true", errors.Is(err, ErrMalformed), errors.Is(err, cause))
	}
	if errors.Is(err, ErrBusy) {
		t.Error("errors.Is(err, ErrBusy): got true, want false")
	}
}

// Hints and the remedy are found through every way errors are combined:
// a chain, several %w in one fmt.Errorf, and errors.Join.
func TestHintsSeeThroughJoinedErrors(t *testing.T) {
	a := Errorf(ErrBusy, "a").Hint("hint a")
	b := Errorf(ErrMissing, "b").Hint("hint b").Fix(RunDoctor, "")
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"chain", fmt.Errorf("outer: %w", a), []string{"hint a"}},
		{"two %w", fmt.Errorf("%w and %w", a, b), []string{"hint a", "hint b"}},
		{"join", errors.Join(a, b), []string{"hint a", "hint b"}},
		{"WithHint over a kind", WithHint(b, "more"), []string{"hint b", "more"}},
		{"plain error", errors.New("x"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Hints(tt.err); !slices.Equal(got, tt.want) {
				t.Errorf("Hints: got %q, want %q", got, tt.want)
			}
		})
	}
	if r, _ := RemedyOf(fmt.Errorf("%w and %w", a, b)); r != RunDoctor {
		t.Errorf("RemedyOf: got %v, want RunDoctor", r)
	}
	if !errors.Is(WithHint(b, "more"), ErrMissing) {
		t.Error("WithHint lost the kind")
	}
}
