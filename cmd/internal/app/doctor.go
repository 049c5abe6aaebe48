package app

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/checkup"
	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// doctorCommands are the workspace health commands.
func doctorCommands() []*cli.Command {
	return []*cli.Command{{
		Name:  "doctor",
		Usage: "check the workspace: each finding with file, line and how to mend it; exit 6 on errors",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "make the safe repairs (reconcile state.md, remove stale temp files, renumber duplicate qids, end a torn claims line), each reported"},
		},
		Action: cmdDoctor,
	}}
}

// errUnhealthy is doctor's decisive line when errors remain; the report on
// stdout says which.
var errUnhealthy = mdstore.Errorf(mdstore.ErrMalformed, "the workspace has errors")

func cmdDoctor(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	rep, err := checkup.Run(e.ctx, ws, e.now, c.Duration("lock-timeout"), c.Bool("fix"))
	if rep == nil {
		return err
	}
	rep.Add(doctor.GitFindings(e.ctx, ws)...)
	switch {
	case e.json:
		printDoctorJSON(e.stdout, rep)
	case !e.quiet:
		printDoctor(e.stdout, rep)
	}
	if err != nil {
		// The lock was busy: the report is of the files read without it, and
		// the decisive line is the busy lock (exit 8), as for every command.
		return err
	}
	if rep.OK {
		return nil
	}
	if rep.Fixable() {
		return mdstore.WithHint(errUnhealthy, "run: devrites-engine doctor --fix")
	}
	return mdstore.WithHint(errUnhealthy, "the errors above need a person: follow each mend line")
}

// printDoctor writes the report for people: repairs, then findings, then a
// count. It is written as it is made: thousands of findings are not held
// twice.
//
//	fixed: questions.md:14: renumbered q-2026-11-29-004 to q-2026-11-29-006 …
//	error: state.md:7: status "paused" is not running, awaiting_human or blocked
//	  mend: set it to running, awaiting_human or blocked
//	doctor: 1 error, 0 warnings, 1 repair
func printDoctor(w io.Writer, r *doctor.Report) {
	b := bufio.NewWriter(w)
	defer b.Flush()
	for _, rp := range r.Repairs {
		fmt.Fprintf(b, "fixed: %s: %s\n", rp.Where(), rp.Did)
	}
	for _, f := range r.Findings {
		fmt.Fprintf(b, "%s: %s: %s\n", f.Severity, f.Where(), f.Problem)
		fmt.Fprintf(b, "  mend: %s\n", f.Mend)
	}
	fmt.Fprintf(b, "doctor: %s, %s", question.Plural(r.Errors, "error"), question.Plural(r.Warnings, "warning"))
	if len(r.Repairs) > 0 {
		fmt.Fprintf(b, ", %s", question.Plural(len(r.Repairs), "repair"))
	}
	b.WriteString("\n")
}

// printDoctorJSON writes the report as print does (one JSON object, two
// spaces of indent), each finding as it goes: thousands of findings are
// not built into one buffer and an indented copy of it first.
func printDoctorJSON(w io.Writer, r *doctor.Report) {
	out := bufio.NewWriterSize(w, 64<<10)
	defer out.Flush()
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false) // as print: "<answer>" stays readable
	value := func(prefix string, v any) []byte {
		item.Reset()
		enc.SetIndent(prefix, "  ")
		_ = enc.Encode(v) // a report always encodes
		return bytes.TrimSuffix(item.Bytes(), []byte("\n"))
	}
	fmt.Fprintf(out, "{\n  \"workspace\": %s,\n  \"ok\": %t,\n  \"errors\": %d,\n  \"warnings\": %d,\n  \"findings\": ",
		value("  ", r.Workspace), r.OK, r.Errors, r.Warnings)
	for i, f := range r.Findings {
		out.WriteString(map[bool]string{true: "[\n    ", false: ",\n    "}[i == 0])
		out.Write(value("    ", f))
	}
	if len(r.Findings) == 0 {
		out.WriteString("[]")
	} else {
		out.WriteString("\n  ]")
	}
	fmt.Fprintf(out, ",\n  \"repairs\": %s\n}\n", value("  ", r.Repairs))
}
