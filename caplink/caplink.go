package caplink

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/devrites/devrites-engine/mdstore"
)

// KeyFile is the name of the secret in the .devrites directory.
const KeyFile = "serve.key"

// keyLen is the size of a key made here, and the least a key file must hold.
const keyLen = 32

// Key is a project's secret.
type Key []byte

// Load reads the key of the .devrites directory devrites. A missing key is
// an error wrapping fs.ErrNotExist.
func Load(devrites string) (Key, error) {
	path := filepath.Join(devrites, KeyFile)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%s: readable by others (mode %04o); make it private: chmod 600 %s", path, perm, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	k, err := hex.DecodeString(string(bytes.TrimSpace(b)))
	if err != nil || len(k) < keyLen {
		return nil, fmt.Errorf("%s: not a key (want %d or more bytes as hex); delete it to make a new one, which ends every link made with it", path, keyLen)
	}
	return Key(k), nil
}

// Ensure returns the key of the .devrites directory devrites, creating it
// when there is none, and makes sure .devrites/.gitignore lists it.
func Ensure(devrites string) (Key, error) {
	k, err := Load(devrites)
	if errors.Is(err, fs.ErrNotExist) {
		k, err = create(devrites)
	}
	if err != nil {
		return nil, err
	}
	if err := mdstore.Ignore(devrites, "the secret of devrites-engine serve's links: never commit it", KeyFile); err != nil {
		return nil, err
	}
	return k, nil
}

// create writes a new key: a private temporary file, linked to its name
// only once it is whole. When another process linked its key first, that
// one is the key.
func create(devrites string) (Key, error) {
	k := make([]byte, keyLen)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(devrites, ".serve.key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	_, err = tmp.WriteString(hex.EncodeToString(k) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	path := filepath.Join(devrites, KeyFile)
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return Load(devrites)
	} else if err != nil {
		return nil, err
	}
	if d, err := os.Open(devrites); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return Key(k), nil
}

// MAC is the token of a purpose over parts: HMAC-SHA256 under the key of
// "devrites-serve/v1", the purpose and the parts, each ended by a NUL byte,
// in unpadded URL-safe base64.
func (k Key) MAC(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, k)
	m.Write([]byte("devrites-serve/v1\x00" + purpose + "\x00"))
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Valid reports, in constant time, whether token is the MAC of purpose over
// parts.
func (k Key) Valid(token, purpose string, parts ...string) bool {
	return len(k) > 0 && hmac.Equal([]byte(token), []byte(k.MAC(purpose, parts...)))
}

// Token is the capability token of one question of a project: the
// question's fingerprint, a dot, and the MAC over the project, the slug,
// the qid and the fingerprint. The fingerprint, not the qid, says which
// question it opens: a merge may give the qid to another question
// (docs/serve.md, "Links bind the question").
func (k Key) Token(project, slug, qid, fingerprint string) string {
	return fingerprint + "." + k.MAC("answer", Project(project), slug, qid, fingerprint)
}

// Opens returns the fingerprint of the question token opens, when the key
// made it for that project, slug and qid.
func (k Key) Opens(token, project, slug, qid string) (fingerprint string, ok bool) {
	fp, mac, found := strings.Cut(token, ".")
	if !found || fp == "" || !k.Valid(mac, "answer", Project(project), slug, qid, fp) {
		return "", false
	}
	return fp, true
}

// Project is the form of a project directory the tokens are made over: its
// absolute path with symbolic links resolved (as it is when that fails).
func Project(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		return resolved
	}
	return dir
}

// Path is the capability link of a question without its scheme and host.
func Path(slug, qid, token string) string {
	return "/q/" + url.PathEscape(slug) + "/" + url.PathEscape(qid) + "?t=" + url.QueryEscape(token)
}

// URL is the capability link of a question under the server's base URL.
func URL(base, slug, qid, token string) string {
	return strings.TrimRight(base, "/") + Path(slug, qid, token)
}

// CheckBase says what is wrong with a serve_url, or returns nil: it must be
// an absolute http or https URL with a host, and no user, query or fragment.
func CheckBase(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL such as http://127.0.0.1:7878", s)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an http or https URL such as http://127.0.0.1:7878", s)
	case u.Host == "":
		return fmt.Errorf("%q has no host", s)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return fmt.Errorf("%q: want only scheme, host, port and path, such as http://127.0.0.1:7878", s)
	}
	return nil
}
