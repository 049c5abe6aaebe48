package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `serve` is handed over to the serve program, found beside this binary or
// on PATH; without it, or when this binary is the one started under its
// name, serve fails with a hint that says how to install it.
func TestServeHandOver(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := handOver([]string{"devrites-engine", "serve"})
	if err == nil || !strings.Contains(err.Error(), "the serve program devrites-engine-serve is neither beside ") {
		t.Errorf("without the serve program: got %v, want it not found", err)
	}

	err = handOver([]string{"/opt/bin/devrites-engine-serve", "serve"})
	if err == nil || err.Error() != "/opt/bin/devrites-engine-serve is a copy of devrites-engine, not the serve program" {
		t.Errorf("started as the serve program: got %v", err)
	}

	bin := t.TempDir()
	prog := filepath.Join(bin, ServeProgram)
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if got, _ := servePath(); got != prog {
		t.Errorf("on PATH: got %q, want %q", got, prog)
	}
	if err := os.Chmod(prog, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, where := servePath(); got != "" || !strings.HasSuffix(where, " nor on PATH") {
		t.Errorf("not executable: got %q (%q), want it not found", got, where)
	}
}
