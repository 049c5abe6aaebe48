package app

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// The prompts of a person at a terminal. A prompt ends in one of three
// ways: a line (the answer), end of input (Ctrl-D: no answer given, exit
// 7) or Ctrl-C (exit 130, as a shell reports an interrupted program). In
// the last two nothing is written for the question asked.

// errInterrupted: the person pressed Ctrl-C at a prompt.
var errInterrupted = errors.New("interrupted")

// exitInterrupted is the exit code of a prompt ended by Ctrl-C.
const exitInterrupted = 130

// prompter reads a person's answers line by line. Lines are read by a
// goroutine, so that a prompt waits for a line and for Ctrl-C at once;
// Ctrl-C is caught while the prompter lives (a transaction it started
// still finishes).
type prompter struct {
	out   io.Writer
	now   func() time.Time
	by    string // who answers: --by, else the name the person gave; "" for the engine's actor
	lines chan lineRead
	intr  chan os.Signal
	eof   bool
}

type lineRead struct {
	s   string
	err error
}

// answerOf is a person's resolution of one question, and who gave it.
type answerOf struct {
	engine.Resolution
	By string
}

func newPrompter(e *env, by string) *prompter {
	p := &prompter{out: e.stdout, now: e.now, by: by, lines: make(chan lineRead), intr: make(chan os.Signal, 1)}
	signal.Notify(p.intr, os.Interrupt)
	in := bufio.NewReader(e.stdin)
	go func() {
		for {
			s, err := in.ReadString('\n')
			p.lines <- lineRead{s, err}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// close stops catching Ctrl-C.
func (p *prompter) close() { signal.Stop(p.intr) }

// line prints the prompt and reads one line: io.EOF when input ended (even
// after words typed: nothing was confirmed), errInterrupted on Ctrl-C.
func (p *prompter) line(prompt string) (string, error) {
	if p.eof {
		return "", io.EOF
	}
	fmt.Fprint(p.out, prompt)
	select {
	case l := <-p.lines:
		if l.err != nil {
			p.eof = true
			fmt.Fprintln(p.out)
			return "", io.EOF
		}
		return strings.TrimSpace(l.s), nil
	case <-p.intr:
		fmt.Fprintln(p.out)
		return "", errInterrupted
	}
}

// ended is the outcome of a session that a prompt ended without an answer:
// Ctrl-C exits 130 with a line saying so, end of input is exit 7, "no
// answer given". written says what was written before it.
func (p *prompter) ended(err error, written string) error {
	if errors.Is(err, errInterrupted) {
		fmt.Fprintln(p.out, "interrupted: "+written)
		return status(exitInterrupted)
	}
	return mdstore.Errorf(engine.ErrBadArgs, "no answer given").Hint(written)
}

// show prints q as questions show does, without the command line that
// answers it (the prompt is that), and what the prompt takes.
func (p *prompter) show(q question.Question, skip bool) {
	fmt.Fprint(p.out, q.Text(p.now()))
	help := "a number or an option's title picks the option; other text is the answer; r rejects, d drops (a reason follows)"
	if skip {
		help += "; s skips, q stops"
	}
	fmt.Fprintln(p.out, help)
}

// ask reads a resolution for q. With skip, "s" passes to the next question
// and "q" stops (ok false, nil error). Empty input asks again.
func (p *prompter) ask(q question.Question, skip bool) (answerOf, bool, error) {
	for {
		s, err := p.line("answer> ")
		if err != nil {
			return answerOf{}, false, err
		}
		switch {
		case s == "":
			continue
		case skip && (s == "s" || s == "q"):
			return answerOf{}, s == "s", nil
		case s == "r" || s == "d":
			kind, what := question.StatusRejected, "feedback> "
			if s == "d" {
				kind, what = question.StatusDropped, "reason> "
			}
			for {
				reason, err := p.line(what)
				if err != nil {
					return answerOf{}, false, err
				}
				if reason != "" {
					return answerOf{Resolution: engine.Resolution{QID: q.QID, Kind: kind, Text: reason, Fingerprint: q.Fingerprint}}, true, nil
				}
			}
		default:
			return answerOf{Resolution: engine.Resolution{QID: q.QID, Kind: question.StatusAnswered, Text: s, Fingerprint: q.Fingerprint}}, true, nil
		}
	}
}

// name is who answers q: --by (or the actor of eng) when they may, else a
// name the person gives when asked, one of the responders q checks. The
// name given is kept for the questions after it.
func (p *prompter) name(q question.Question, eng *engine.Engine) (string, error) {
	by := p.by
	if by == "" {
		by = eng.Actor
	}
	if q.MayAnswer(by) {
		return p.by, nil
	}
	fmt.Fprintf(p.out, "only %s may answer %s; who are you?\n", strings.Join(q.Awaits(), ", "), q.QID)
	for {
		s, err := p.line("name> ")
		if err != nil {
			return "", err
		}
		if s != "" && q.MayAnswer(s) {
			p.by = s
			return s, nil
		}
		if s != "" {
			fmt.Fprintf(p.out, "%s is not one of them\n", s)
		}
	}
}
