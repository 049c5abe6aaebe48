package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/devrites/devrites-engine/trust"
)

// Trust (docs/trust.md): a workspace file that runs a command or approves
// without a person takes effect only while this machine's trust store
// holds its current content. The AFK file, notify.yaml and rules.yaml are
// verified on the bytes they were parsed from, so an edit between the check
// and the use goes unseen by neither.

// UntrustedWhy says why content read from path does not take effect here,
// or "" when a person trusted it on this machine.
func UntrustedWhy(path string, content []byte) string {
	s, err := trust.Open()
	if err != nil {
		return "not trusted (" + err.Error() + ")"
	}
	v, err := s.Verify(path, content)
	if err != nil {
		return "not trusted (the trust store cannot be read: " + err.Error() + ")"
	}
	if v == trust.Trusted {
		return ""
	}
	return v.String()
}

// verify marks a config file that is not trusted here.
func (a *AFK) verify() {
	if a.Path == "" || a.Broken {
		return
	}
	if a.Untrusted = UntrustedWhy(a.Path, a.data); a.Untrusted == "" {
		a.Untrusted = a.commandFilesWhy() // trust_files.go
	}
	if a.Untrusted != "" {
		a.TrustCommand = trust.Command(a.Path)
	}
}

// TrustWarning is the one warning of an untrusted config file: what it does
// not do, and the command that trusts it. Every effect held back in a
// command gives the same words, so the caller prints them once.
func (a AFK) TrustWarning() string {
	return trustWarning(a.Path, a.Untrusted, afkEffect(a.Path))
}

// afkEffect is what an untrusted AFK file or notify.yaml does not do.
func afkEffect(path string) string {
	if filepath.Base(path) == "notify.yaml" {
		return "its notify command does not run"
	}
	return "its notify command does not run and nothing is auto-picked"
}

func trustWarning(path, why, what string) string {
	return fmt.Sprintf("%s is %s on this machine: %s; %s", path, why, what, TrustHint)
}

// TrustHint is what every warning and hint about an untrusted file says
// instead of a command: trust is a person's act at a terminal (docs/trust.md),
// so nothing an agent reads is a trust command ready to run.
const TrustHint = "a person must review it and run `devrites-engine trust` at a terminal"

// verify marks a rules file that is not trusted here.
func (r *Rules) verify() {
	if r.Path == "" || r.Broken || !r.grants() {
		return
	}
	r.Untrusted = UntrustedWhy(r.Path, r.data)
	if r.Untrusted != "" {
		r.TrustCommand = trust.Command(r.Path)
	}
}

// grants reports whether the rules approve anything: a file of never-auto
// rules only needs no trust.
func (r *Rules) grants() bool {
	return slices.ContainsFunc(r.List, func(x Rule) bool { return x.Action == AlwaysApprove })
}

// TrustWarning is the one warning of an untrusted rules file.
func (r *Rules) TrustWarning() string {
	return trustWarning(r.Path, r.Untrusted, rulesEffect)
}

const rulesEffect = "its always-approve rules do not apply (never-auto rules do)"

// trustWritten trusts the bytes a command of a person on this machine just
// wrote to path, when what was there before was trusted or granted nothing;
// else it returns the warning that the file stays untrusted: the person's
// edit does not vouch for the lines around it.
func trustWritten(path string, before, after []byte, beforeGrants bool) string {
	if beforeGrants && UntrustedWhy(path, before) != "" {
		return trustWarning(path, "not trusted", "it held lines that were not trusted here before this edit, so its always-approve rules do not apply")
	}
	s, err := trust.Open()
	if err == nil {
		_, err = s.Add(path, after)
	}
	if err != nil {
		return fmt.Sprintf("%s could not be trusted: %v; its always-approve rules do not apply until %s", path, err, strings.TrimPrefix(TrustHint, "a person must review it and "))
	}
	return ""
}

// UntrustedFile is a config file that does not take effect on this machine.
type UntrustedFile struct {
	Path    string `json:"path"`
	Why     string `json:"why"`    // "not trusted", "changed since it was trusted"
	Effect  string `json:"effect"` // what it does not do
	Command string `json:"-"`      // the command that trusts it, offered only to a person at a terminal
}

// Warning is the one warning about the file: what it does not do and the
// command that trusts it.
func (u UntrustedFile) Warning() string { return trustWarning(u.Path, u.Why, u.Effect) }

// UntrustedFile is the file as an untrusted file (meaningful when
// Untrusted is set).
func (a AFK) UntrustedFile() UntrustedFile {
	return UntrustedFile{a.Path, a.Untrusted, afkEffect(a.Path), a.TrustCommand}
}

// UntrustedFile is rules.yaml as an untrusted file (meaningful when
// Untrusted is set).
func (r *Rules) UntrustedFile() UntrustedFile {
	return UntrustedFile{r.Path, r.Untrusted, rulesEffect, r.TrustCommand}
}
