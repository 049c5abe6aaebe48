package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What a trusted command runs is trusted too (docs/trust.md): a notify
// command that runs a file of the project (sh ./hooks/notify.sh,
// ./notify.sh, python3 tools/page.py) runs what that file says now, so
// the file's content is part of what a person trusted. Trusting a config
// file trusts the project files its command names as well, and the
// command runs only while each of them is unchanged.
//
// A word of the command names a project file when, taken as a path from
// the project directory (where the hook runs), it is a regular file inside
// the project. Words are split at blanks, quotes and the shell's
// operators, so `sh -c './x.sh'` names x.sh too. A file the command reaches
// some other way (a variable, a script that runs another) is not seen:
// that is the limit of reading a command without running it.

// CommandFiles are the project files the notify command of the config
// file at path (an AFK file or notify.yaml) names, absolute; nil for
// other files or a command that names none.
func CommandFiles(path string) []string {
	if base := filepath.Base(path); base != "AFK" && base != "notify.yaml" {
		return nil
	}
	a := loadConfig(path)
	return commandFiles(filepath.Dir(filepath.Dir(path)), a.Notify)
}

func commandFiles(project, command string) []string {
	if project == "" || strings.TrimSpace(command) == "" {
		return nil
	}
	root, err := filepath.EvalSymlinks(project)
	if err != nil {
		return nil
	}
	var out []string
	for _, w := range commandWords(command) {
		if strings.HasPrefix(w, "-") || strings.ContainsAny(w, "$=*?") ||
			!strings.Contains(w, "/") && !slices.Contains(scriptExts, filepath.Ext(w)) {
			continue
		}
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(project, p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// scriptExts name a script run by its interpreter without a path
// (sh notify.sh, python3 page.py).
var scriptExts = []string{".sh", ".bash", ".zsh", ".py", ".rb", ".pl", ".js", ".mjs", ".ts", ".php", ".lua"}

// commandWords are the words of command that may name a file to run:
// split at blanks, quotes and the shell's operators, leaving out the
// target of a redirection (a file the hook writes is not one it runs).
func commandWords(command string) []string {
	var words []string
	var w strings.Builder
	redirect := false
	end := func() {
		if w.Len() > 0 && !redirect {
			words = append(words, w.String())
		}
		if w.Len() > 0 {
			redirect = false
		}
		w.Reset()
	}
	for _, r := range command {
		switch {
		case r == '<' || r == '>':
			end()
			redirect = true
		case r == ' ' || r == '\t' || r == '\n' || strings.ContainsRune(`'"`+"`;&|()", r):
			end()
		default:
			w.WriteRune(r)
		}
	}
	end()
	return words
}

// commandFilesWhy says why a file the trusted command names does not take
// effect, or "" when each is as a person trusted it.
func (a *AFK) commandFilesWhy() string {
	for _, f := range commandFiles(filepath.Dir(filepath.Dir(a.Path)), a.Notify) {
		b, err := os.ReadFile(f)
		why := "unreadable"
		if err == nil {
			why = UntrustedWhy(f, b)
		}
		if why != "" {
			rel, _ := filepath.Rel(filepath.Dir(filepath.Dir(a.Path)), f)
			return "trusted, but " + rel + ", which its notify command runs, is " + why
		}
	}
	return ""
}

// symlinkRefused refuses a workspace configuration file that is a symbolic
// link: trust is kept by the real path, so a link would borrow another
// project's trust (docs/trust.md).
func symlinkRefused(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return errSymlink
	}
	return nil
}

var errSymlink = errors.New("a symbolic link: a workspace configuration file is never a link, so one project's trust is never borrowed by another")
