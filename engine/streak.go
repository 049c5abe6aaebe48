package engine

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/devrites/devrites-engine/machine"
	"github.com/devrites/devrites-engine/question"
)

// auto_approve_after counts only a person's own resolutions on this
// machine (docs/afk-and-notify.md, rule 7): a resolution through a
// person's channel (personChannel) that this machine recorded. An
// answered_via line in questions.md proves neither — a branch can carry
// any — so the engine keeps its own record outside every repository,
// beside the trust store: $XDG_CONFIG_HOME/devrites-engine/answered, one
// line per resolution, "<fingerprint> <choice>", mode 0600. A resolution
// merged from another clone, recorded with --answered, or made through
// the agent or the command line without a terminal is not in it, and so
// ends a streak instead of adding to it.
//
// Limit: the file is the OS user's, as the trust store is.

// answeredLedger is this machine's record of a person's resolutions.
func answeredLedger() (string, error) {
	dir, err := machine.Dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "answered"), nil
}

// remember records the resolutions of fired made through a person's
// channel. It runs after the transaction committed; a failure to record
// only makes a later streak shorter (fail closed).
func (e *Engine) remember(fired []firing) {
	var b bytes.Buffer
	for _, f := range fired {
		q := f.q
		if q.Status != question.StatusAnswered || q.Choice == nil || !personChannel(q.AnsweredVia) || q.Auto != "" {
			continue
		}
		b.WriteString(question.Fingerprint(e.WS.Slug, q) + " " + strconv.Itoa(*q.Choice) + "\n")
	}
	if b.Len() == 0 {
		return
	}
	path, err := answeredLedger()
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o700) != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(b.Bytes())
	_ = f.Close()
}

// answeredHere marks each question of history that this machine recorded
// as a person's resolution.
func (e *Engine) answeredHere(history []question.Question) []question.Question {
	path, err := answeredLedger()
	if err != nil {
		return history
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return history
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		seen[sc.Text()] = true
	}
	for i, q := range history {
		if q.Choice != nil && personChannel(q.AnsweredVia) {
			history[i].AnsweredHere = seen[question.Fingerprint(e.WS.Slug, q)+" "+strconv.Itoa(*q.Choice)]
		}
	}
	return history
}
