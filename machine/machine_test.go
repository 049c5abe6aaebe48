package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	c, err := Load()
	if err != nil || c.Name != "" || c.SigningKey != "" {
		t.Fatalf("missing file: got %+v, %v, want an empty config", c, err)
	}
	dir := filepath.Join(home, ".config", "devrites-engine")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("name: alice\nsigning_key: ~/.ssh/id_ed25519.pub\n")
	c, err = Load()
	if err != nil || c.Name != "alice" || c.SigningKey != filepath.Join(home, ".ssh/id_ed25519.pub") {
		t.Fatalf("got %+v, %v, want alice and the key under HOME", c, err)
	}
	write("name: alice\nsigning_ky: x\n")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "config.yaml") {
		t.Fatalf("unknown key: got %v, want an error naming config.yaml", err)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if p, _ := AllowedSigners(); p != filepath.Join(xdg, "devrites-engine", "allowed_signers") {
		t.Fatalf("got %s, want allowed_signers under XDG_CONFIG_HOME", p)
	}
}
