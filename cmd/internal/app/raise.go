package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

func cmdRaise(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	var r engine.RaiseRequest
	if in := c.String("input"); in != "" {
		b, err := readInput("--input", in, e.stdin)
		if err != nil {
			return err
		}
		if err := decodeRaise(b, &r); err != nil {
			return mdstore.WithHint(fmt.Errorf("--input %s: %w", in, err),
				`a JSON object with fields: slice gate question options[] proposed sla route[] strategy tags[] breakpoint blocking_slices answered choice`)
		}
	}
	for name, dst := range map[string]*string{"slice": &r.Slice, "gate": &r.Gate, "question": &r.Question, "proposed": &r.Proposed,
		"sla": &r.SLA, "strategy": &r.Strategy, "breakpoint": &r.Breakpoint, "blocking-slices": &r.BlockingSlices} {
		if c.IsSet(name) {
			*dst = c.String(name)
		}
	}
	if c.IsSet("option") {
		r.Options = c.StringSlice("option")
	}
	if c.IsSet("tag") {
		r.Tags = c.StringSlice("tag")
	}
	if c.IsSet("route") {
		r.Route = c.StringSlice("route")
	}
	if c.IsSet("answered") {
		v := c.String("answered")
		r.Answered = &v
	}
	if c.IsSet("choice") {
		v := c.Int("choice")
		r.Choice = &v
	}
	r.NoAlwaysApprove = r.NoAlwaysApprove || c.Bool("no-always-approve")
	if err := e.raiseClaimCheck(c); err != nil {
		return err
	}
	eng, err := e.open()
	if err != nil {
		return err
	}
	r.Via = e.via()
	res, err := eng.Raise(e.ctx, r, c.String("by"))
	if err != nil {
		return err
	}
	e.warn(res.Warnings)
	var b strings.Builder
	q := res.Question
	switch res.Outcome {
	case engine.Paused:
		fmt.Fprintf(&b, "%s paused: a human must answer (%s, SLA %s)\n", res.QID, q.Gate, q.SLA)
		if len(q.Route) > 0 {
			fmt.Fprintf(&b, "waiting for: %s\n", q.WaitingText())
		}
		fmt.Fprintf(&b, "resolve: %s\n", eng.ResolveCommand(q))
		b.WriteString(chatForms(eng))
	case engine.AutoPicked:
		fmt.Fprintf(&b, "%s auto-picked option 1: %s (rule %d, %s)\n", res.QID, deref(q.Answer), res.Decision.Rule, res.Decision.Name)
	case engine.Provisional:
		fmt.Fprintf(&b, "%s provisional: proceed on option 1 (%s); it stays open until a person validates it\n", res.QID, q.Proposed)
	case engine.Recorded:
		fmt.Fprintf(&b, "%s recorded: %s\n", res.QID, deref(q.Answer))
	}
	if c.Bool("explain") {
		fmt.Fprintf(&b, "decided by rule %d (%s): %s\n", res.Decision.Rule, res.Decision.Name, res.Decision.Reason)
	}
	e.print(res, b.String())
	if res.Outcome == engine.Paused {
		if e.quiet && !e.json {
			fmt.Fprintln(e.stdout, res.QID) // the agent must know what it waits for
		}
		return status(exitPaused)
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return mdstore.OneLine(*s)
}

// readInput reads the text a flag names: FILE, or stdin for "-". Text that
// is not valid UTF-8 is refused, never repaired.
func readInput(flag, name string, stdin io.Reader) ([]byte, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // "open FILE: " would name the file twice
	}
	if err != nil {
		return nil, mdstore.Errorf(engine.ErrBadArgs, "%s %s: %v", flag, name, err)
	}
	if line := mdstore.InvalidUTF8Line(b); line > 0 {
		return nil, mdstore.Errorf(engine.ErrBadArgs, "%s %s: not valid UTF-8 (line %d)", flag, name, line)
	}
	return b, nil
}

// decodeRaise reads --input: one JSON object of RaiseRequest's fields.
func decodeRaise(b []byte, r *engine.RaiseRequest) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return mdstore.Errorf(engine.ErrBadArgs, "not a JSON object")
	}
	if err := dec.Decode(r); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return mdstore.Errorf(engine.ErrBadArgs, "not valid JSON at line %d: %s", 1+bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n")), strings.TrimPrefix(se.Error(), "json: "))
		case errors.As(err, &te):
			want := map[string]string{"string": "a string", "int": "a whole number", "[]string": "a list of strings", "bool": "true or false"}[te.Type.String()]
			if want == "" {
				want = te.Type.String()
			}
			return mdstore.Errorf(engine.ErrBadArgs, "field %q must be %s, not a JSON %s", te.Field, want, te.Value)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return mdstore.Errorf(engine.ErrBadArgs, "the JSON object is not closed")
		}
		return mdstore.Errorf(engine.ErrBadArgs, "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return mdstore.Errorf(engine.ErrBadArgs, "more than one JSON value")
	}
	return nil
}
