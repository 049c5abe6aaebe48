package machine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Config is this machine's config.yaml.
type Config struct {
	Name       string `yaml:"name"`
	SigningKey string `yaml:"signing_key"`
	path       string
}

// Path is the file the configuration was read from.
func (c Config) Path() string { return c.path }

// ErrNoHome is Dir's error when neither variable names a directory.
var ErrNoHome = errors.New("neither $XDG_CONFIG_HOME nor $HOME is an absolute path")

// Dir is this machine's settings directory.
func Dir() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := os.Getenv("HOME")
		if !filepath.IsAbs(home) {
			return "", fmt.Errorf("%w, so this machine has no settings directory", ErrNoHome)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "devrites-engine"), nil
}

// AllowedSigners is the path of this machine's allowed_signers file.
func AllowedSigners() (string, error) {
	dir, err := Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "allowed_signers"), nil
}

// Load reads config.yaml; a missing file is an empty Config. A signing_key
// starting with "~/" is taken from $HOME, as git takes user.signingkey.
func Load() (Config, error) {
	dir, err := Dir()
	if err != nil {
		return Config{}, err
	}
	path := filepath.Join(dir, "config.yaml")
	c := Config{path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	if rest, ok := strings.CutPrefix(c.SigningKey, "~/"); ok && rest != "" {
		if home := os.Getenv("HOME"); filepath.IsAbs(home) {
			c.SigningKey = filepath.Join(home, rest)
		}
	}
	return c, nil
}
