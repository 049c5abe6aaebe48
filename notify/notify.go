package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// Schema is the version of the JSON document written to the hook's stdin.
const Schema = 1

// MaxOutput bounds the hook output kept in notify.log per run.
const MaxOutput = 4096

// MaxLog is the size past which notify.log is rotated.
const MaxLog = 1 << 20

// DefaultTimeout applies when a Hook has no timeout.
const DefaultTimeout = 10 * time.Second

// Event is what the hook is told. The first six fields are the contract's
// DEVRITES_* variables; the rest are extras.
type Event struct {
	Schema    int    `json:"schema"`
	Event     string `json:"event"`
	QID       string `json:"qid"`
	Gate      string `json:"gate"`
	Slice     string `json:"slice"`
	Slug      string `json:"slug"`
	Question  string `json:"question"`
	Proposed  string `json:"proposed"`
	SLA       string `json:"sla"`
	RaisedAt  string `json:"raised_at"`
	Workspace string `json:"workspace"`
	// Resume is the command that answers the question while it is open;
	// the event of a final question has none.
	Resume string `json:"resume,omitempty"`
	Status string `json:"status,omitempty"`
	// Answer, AnsweredBy and Choice are those of a final question: its
	// answer (or reason, or feedback), who gave it, and the option it
	// picked (0: none).
	Answer     string   `json:"answer,omitempty"`
	AnsweredBy string   `json:"answered_by,omitempty"`
	Choice     int      `json:"choice,omitempty"`
	Options    []string `json:"options"`
	// AlwaysApprove is the command that answers option 1 and always
	// approves the question's breakpoint, when the question offers it.
	AlwaysApprove string `json:"always_approve,omitempty"`
	// AnswerURL is the question's capability link on `devrites-engine
	// serve`, when serve_url is configured and the question is open.
	AnswerURL string `json:"answer_url,omitempty"`
	// Route and Strategy are those of a routed question; Responses are its
	// responses in the order they came (the last is Responder's, whose
	// response this event is about), and Progress says where they stand:
	// "1 of 3 responded; waiting for bob, carol".
	Route     []string   `json:"route,omitempty"`
	Strategy  string     `json:"strategy,omitempty"`
	Responder string     `json:"responder,omitempty"`
	Progress  string     `json:"progress,omitempty"`
	Responses []Response `json:"responses,omitempty"`
	// EscalatedTo are the people on_overdue's escalate_to paged about the
	// question, once it was overdue.
	EscalatedTo []string `json:"escalated_to,omitempty"`
}

// Response is one routed responder's response.
type Response struct {
	By     string `json:"by"`
	At     string `json:"at,omitempty"`
	Status string `json:"status"`
	Choice int    `json:"choice,omitempty"`
	Answer string `json:"answer"`
}

// Env returns the variables the hook gets, as KEY=value strings.
// DEVRITES_RESUME is set only while the question is open,
// DEVRITES_ANSWERED_BY and DEVRITES_CHOICE only once it is final (the
// choice when it picked an option), DEVRITES_ALWAYS_APPROVE only when the
// question offers it,
// DEVRITES_ANSWER_URL only when there is an answer link, and
// DEVRITES_ROUTE (the names joined by commas), DEVRITES_STRATEGY,
// DEVRITES_RESPONDER and DEVRITES_PROGRESS only for a routed question,
// DEVRITES_ESCALATED_TO (names joined by commas) only for an escalated one.
func (e Event) Env() []string {
	env := []string{
		"DEVRITES_QID=" + e.QID,
		"DEVRITES_GATE=" + e.Gate,
		"DEVRITES_SLICE=" + e.Slice,
		"DEVRITES_SLUG=" + e.Slug,
		"DEVRITES_QUESTION=" + e.Question,
		"DEVRITES_PROPOSED=" + e.Proposed,
		"DEVRITES_EVENT=" + e.Event,
		"DEVRITES_SLA=" + e.SLA,
		"DEVRITES_RAISED_AT=" + e.RaisedAt,
		"DEVRITES_WORKSPACE=" + e.Workspace,
	}
	if e.Resume != "" {
		env = append(env, "DEVRITES_RESUME="+e.Resume)
	}
	if e.AnsweredBy != "" {
		env = append(env, "DEVRITES_ANSWERED_BY="+e.AnsweredBy)
	}
	if e.Choice != 0 {
		env = append(env, "DEVRITES_CHOICE="+strconv.Itoa(e.Choice))
	}
	if e.AlwaysApprove != "" {
		env = append(env, "DEVRITES_ALWAYS_APPROVE="+e.AlwaysApprove)
	}
	if e.AnswerURL != "" {
		env = append(env, "DEVRITES_ANSWER_URL="+e.AnswerURL)
	}
	for _, v := range []struct{ name, value string }{{"ROUTE", strings.Join(e.Route, ",")}, {"STRATEGY", e.Strategy},
		{"RESPONDER", e.Responder}, {"PROGRESS", e.Progress},
		{"ESCALATED_TO", strings.Join(e.EscalatedTo, ",")}} {
		if v.value != "" {
			env = append(env, "DEVRITES_"+v.name+"="+v.value)
		}
	}
	return env
}

// Hook is how to run the command.
type Hook struct {
	Command string        // run as sh -c Command
	Dir     string        // the project directory
	Timeout time.Duration // past it the process group is killed
	Log     string        // path of notify.log; "" keeps no log
	Now     func() time.Time
}

// Outcome is what happened to one run.
type Outcome struct {
	Exit     int           `json:"exit"` // -1 when it did not exit by itself
	Duration time.Duration `json:"-"`
	TimedOut bool          `json:"timed_out"`
	Err      error         `json:"-"` // could not start, or exited non-zero
	Output   string        `json:"output"`
	// LogErr says why the outcome was not appended to notify.log: the path
	// is not a regular file (a link, a named pipe, a directory), or the
	// write failed. It is a warning, like Err.
	LogErr error `json:"-"`
}

// OK reports whether the hook ran and exited 0.
func (o Outcome) OK() bool { return o.Err == nil }

// Fire runs the hook once for the event and logs the outcome.
func Fire(ctx context.Context, h Hook, ev Event) Outcome {
	ev.Schema = Schema
	if ev.Options == nil {
		ev.Options = []string{}
	}
	// One JSON document and a newline; "<" and ">" are kept as they are so
	// that a hook forwarding the text shows it as written.
	var stdin bytes.Buffer
	enc := json.NewEncoder(&stdin)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ev)
	var out bounded
	cmd := exec.Command("sh", "-c", h.Command)
	cmd.Dir = h.Dir
	cmd.Env = append(callerEnv(), ev.Env()...)
	cmd.Stdin = &stdin
	cmd.Stdout, cmd.Stderr = &out, &out
	ownGroup(cmd)
	cmd.WaitDelay = time.Second // a grandchild holding the pipe cannot hold us

	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	start := time.Now()
	o := Outcome{Exit: -1}
	if err := cmd.Start(); err != nil {
		o.Err = fmt.Errorf("notify hook did not start: %w", err)
		o.Duration = time.Since(start)
		o.LogErr = h.log(ev, o)
		return o
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var err error
	interrupted := false
	select {
	case err = <-done:
	case <-timer.C:
		o.TimedOut = true
		killGroup(cmd)
		err = <-done
	case <-ctx.Done():
		interrupted = true
		killGroup(cmd)
		err = <-done
	}
	// Whatever it left in its group goes too.
	killGroup(cmd)
	o.Duration = time.Since(start)
	o.Output = out.String()
	var exitErr *exec.ExitError
	switch {
	case o.TimedOut:
		o.Err = fmt.Errorf("notify hook timed out after %s and was killed", timeout)
	case interrupted:
		o.Err = fmt.Errorf("notify hook interrupted: %w", ctx.Err())
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 127:
		o.Exit = 127
		o.Err = errors.New("notify hook exited 127: command not found")
	case errors.As(err, &exitErr) && exitErr.ExitCode() < 0:
		o.Err = fmt.Errorf("notify hook did not exit by itself (%v)", exitErr)
	case errors.As(err, &exitErr):
		o.Exit = exitErr.ExitCode()
		o.Err = fmt.Errorf("notify hook exited %d", o.Exit)
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		o.Err = fmt.Errorf("notify hook: %w", err)
	default:
		o.Exit = cmd.ProcessState.ExitCode()
	}
	o.LogErr = h.log(ev, o)
	return o
}

// callerEnv is the engine's environment without any DEVRITES_* variable:
// the hook sees only the values of this event, never a stale answer link,
// route or slug of whoever ran the engine.
func callerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DEVRITES_") {
			env = append(env, kv)
		}
	}
	return env
}

// log appends one entry to notify.log and returns why it could not; the
// caller turns that into a warning, never an error.
func (h Hook) log(ev Event, o Outcome) error {
	if h.Log == "" {
		return nil
	}
	if fi, err := os.Lstat(h.Log); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxLog {
		_ = os.Rename(h.Log, h.Log+".1")
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	status := fmt.Sprintf("exit=%d", o.Exit)
	if o.TimedOut {
		status = "timeout"
	} else if o.Exit < 0 && o.Err != nil {
		status = "error"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s event=%s qid=%s %s duration=%dms\n", now().UTC().Format("2006-01-02T15:04:05Z"),
		ev.Event, ev.QID, status, o.Duration.Milliseconds())
	if o.Err != nil && o.Exit < 0 && !o.TimedOut {
		fmt.Fprintf(&b, "  %s\n", o.Err)
	}
	for _, l := range strings.Split(strings.TrimRight(o.Output, "\n"), "\n") {
		if l != "" {
			b.WriteString("  | " + l + "\n")
		}
	}
	f, err := openLog(h.Log)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(b.String())
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("%s: %w: the notify hook's outcome was not logged", h.Log, werr)
	}
	if cerr != nil {
		return fmt.Errorf("%s: %w: the notify hook's outcome may not be logged", h.Log, cerr)
	}
	return nil
}

// openLog opens path for appending, creating it as a regular file. It does
// not follow a symbolic link (which could point outside the workspace) and
// does not wait on a named pipe (mdstore.OpenRegular); anything but a
// regular file is closed unwritten.
func openLog(path string) (*os.File, error) {
	f, err := mdstore.OpenRegular(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	var nr *mdstore.NotRegularError
	switch {
	case errors.As(err, &nr):
		return nil, fmt.Errorf("%s: not a regular file (%s): the notify hook's outcome was not logged", path, nr.Type)
	case err != nil:
		return nil, fmt.Errorf("%s: %w: the notify hook's outcome was not logged", path, err)
	}
	return f, nil
}

// bounded keeps the first MaxOutput bytes written to it and counts the rest.
type bounded struct {
	buf     bytes.Buffer
	dropped int
}

func (b *bounded) Write(p []byte) (int, error) {
	room := MaxOutput - b.buf.Len()
	if room > len(p) {
		room = len(p)
	}
	if room > 0 {
		b.buf.Write(p[:room])
	}
	b.dropped += len(p) - room
	return len(p), nil
}

func (b *bounded) String() string {
	if b.dropped > 0 {
		return b.buf.String() + fmt.Sprintf("\n[%d more bytes not kept]", b.dropped)
	}
	return b.buf.String()
}
