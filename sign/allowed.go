package sign

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
)

// git's allowed_signers format (ssh-keygen(1), "ALLOWED SIGNERS"), one
// signer a line:
//
//	principals [options] key-type base64-key [comment]
//
// principals is a comma-separated list of patterns ('*' and '?'
// wildcards, '!' to exclude), quoted with '"' when it holds blanks;
// options are namespaces="a,b", valid-after="YYYYMMDD[HHMM[SS]][Z]" and
// valid-before="…" (a time without Z is local time, as ssh-keygen reads
// it). A line with cert-authority, or an option this parser does not know,
// is a Problem and grants nothing: a line that cannot be read fails closed.
// No Go library parses this format with options and dates (docs/signing.md),
// so this small parser lives here; the key itself is read by
// golang.org/x/crypto/ssh, which reads the options' quoting as
// authorized_keys does.

// Signer is one line of an allowed_signers file.
type Signer struct {
	Principals  []string // patterns
	Namespaces  []string // nil: every namespace
	ValidAfter  time.Time
	ValidBefore time.Time
	Key         ssh.PublicKey
	File        string
	Line        int
}

// Problem is a line that grants nothing: why, where.
type Problem struct {
	File string
	Line int
	Text string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Text) }

// Allowed is the allowed signers read from one or more files.
type Allowed struct {
	Signers  []Signer
	Problems []Problem
}

// ParseAllowed reads an allowed_signers file's content; file names it in
// problems.
func ParseAllowed(file string, data []byte) Allowed {
	var a Allowed
	for n, raw := range bytes.Split(data, []byte("\n")) {
		line := strings.TrimSpace(string(raw))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		s, err := parseSigner(line)
		if err != nil {
			a.Problems = append(a.Problems, Problem{file, n + 1, err.Error()})
			continue
		}
		s.File, s.Line = file, n+1
		a.Signers = append(a.Signers, s)
	}
	return a
}

// Add appends o's signers and problems.
func (a *Allowed) Add(o Allowed) {
	a.Signers = append(a.Signers, o.Signers...)
	a.Problems = append(a.Problems, o.Problems...)
}

func parseSigner(line string) (Signer, error) {
	var s Signer
	var principals, rest string
	if strings.HasPrefix(line, `"`) {
		end := strings.IndexByte(line[1:], '"')
		if end < 0 {
			return s, errors.New("the quoted principals have no closing quote")
		}
		principals, rest = line[1:1+end], line[2+end:]
	} else {
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			return s, errors.New("want principals, then a public key")
		}
		principals, rest = line[:i], line[i:]
	}
	for _, p := range strings.Split(principals, ",") {
		if p = strings.TrimSpace(p); p != "" {
			s.Principals = append(s.Principals, p)
		}
	}
	if len(s.Principals) == 0 {
		return s, errors.New("no principals")
	}
	key, _, opts, _, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(rest)))
	if err != nil {
		return s, fmt.Errorf("the public key does not parse: %v", err)
	}
	s.Key = key
	for _, o := range opts {
		name, val, hasVal := strings.Cut(o, "=")
		val = strings.Trim(val, `"`)
		switch name = strings.ToLower(name); {
		case name == "namespaces" && hasVal:
			for _, ns := range strings.Split(val, ",") {
				s.Namespaces = append(s.Namespaces, strings.TrimSpace(ns))
			}
		case (name == "valid-after" || name == "valid-before") && hasVal:
			t, err := parseSignerTime(val)
			if err != nil {
				return s, fmt.Errorf("%s: %v", name, err)
			}
			if name == "valid-after" {
				s.ValidAfter = t
			} else {
				s.ValidBefore = t
			}
		case name == "cert-authority":
			return s, errors.New("cert-authority lines are not supported: they grant nothing here (docs/signing.md)")
		default:
			return s, fmt.Errorf("option %q is not namespaces, valid-after or valid-before", o)
		}
	}
	return s, nil
}

// parseSignerTime reads YYYYMMDD[HHMM[SS]][Z].
func parseSignerTime(v string) (time.Time, error) {
	loc := time.Local
	if strings.HasSuffix(v, "Z") || strings.HasSuffix(v, "z") {
		v, loc = v[:len(v)-1], time.UTC
	}
	layout := map[int]string{8: "20060102", 12: "200601021504", 14: "20060102150405"}[len(v)]
	if layout == "" {
		return time.Time{}, fmt.Errorf("%q is not YYYYMMDD[HHMM[SS]][Z]", v)
	}
	t, err := time.ParseInLocation(layout, v, loc)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not YYYYMMDD[HHMM[SS]][Z]", v)
	}
	return t, nil
}

// allows reports whether the line lets key sign for principal in the
// decision namespace at time at, and if not, why.
func (s Signer) allows(key ssh.PublicKey, principal string, at time.Time) (bool, string) {
	if !bytes.Equal(s.Key.Marshal(), key.Marshal()) {
		return false, ""
	}
	if !matchList(s.Principals, principal) {
		return false, fmt.Sprintf("%s:%d lists the key for %s, not %s", s.File, s.Line, strings.Join(s.Principals, ","), principal)
	}
	if s.Namespaces != nil && !matchList(s.Namespaces, Namespace) {
		return false, fmt.Sprintf("%s:%d does not allow the key the namespace %s", s.File, s.Line, Namespace)
	}
	if !s.ValidAfter.IsZero() && at.Before(s.ValidAfter) {
		return false, fmt.Sprintf("%s:%d makes the key valid only after %s", s.File, s.Line, s.ValidAfter.Format(time.RFC3339))
	}
	if !s.ValidBefore.IsZero() && !at.Before(s.ValidBefore) {
		return false, fmt.Sprintf("%s:%d made the key valid only before %s", s.File, s.Line, s.ValidBefore.Format(time.RFC3339))
	}
	return true, ""
}

// matchList is OpenSSH's pattern list: a name matches when a pattern
// matches it and no '!' pattern does.
func matchList(patterns []string, name string) bool {
	ok := false
	for _, p := range patterns {
		if neg, found := strings.CutPrefix(p, "!"); found {
			if match(neg, name) {
				return false
			}
		} else if match(p, name) {
			ok = true
		}
	}
	return ok
}

// match is a wildcard match: '*' any run of characters, '?' one.
func match(pattern, name string) bool {
	for pattern != "" {
		switch pattern[0] {
		case '*':
			for i := len(name); i >= 0; i-- {
				if match(pattern[1:], name[i:]) {
					return true
				}
			}
			return false
		case '?':
			if name == "" {
				return false
			}
			pattern, name = pattern[1:], name[1:]
		default:
			if name == "" || pattern[0] != name[0] {
				return false
			}
			pattern, name = pattern[1:], name[1:]
		}
	}
	return name == ""
}
