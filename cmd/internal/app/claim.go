package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/claims"
	"github.com/devrites/devrites-engine/mdstore"
)

// claimCommands are the claims of .devrites/claims.jsonl (package claims),
// with DevRites' arguments, lines and exit codes: 0, 3 when a path is held
// (stop and wait, as a pause), 2 for every other failure but a busy lock
// (8), which DevRites, taking no lock, does not have. The lines:
//
//	claim: <id> claimed N path(s) until T                  add (stdout)
//	claim: BLOCKED: <path> held by session "X" until T     add (stderr), check (stdout)
//	<id> <state> session=S paths=a,b until=T               list
func claimCommands() []*cli.Command {
	session := func(usage string) cli.Flag { return &cli.StringFlag{Name: "session", Usage: usage} }
	ttl := &cli.IntFlag{Name: "ttl", Value: claims.DefaultTTL, Usage: fmt.Sprintf("minutes the claim lasts (%d to %d)", claims.MinTTL, claims.MaxTTL)}
	id := &cli.StringFlag{Name: "id", Usage: "the claim's id (cl-…)"}
	return []*cli.Command{{
		Name: "claim", Usage: "claims of paths by sessions working in one tree (.devrites/claims.jsonl, shared with DevRites)",
		Subcommands: []*cli.Command{
			{
				Name: "add", Usage: "claim paths for a session unless another session holds one live (exit 3)",
				ArgsUsage: "PATH…", Action: cmdClaimAdd,
				Flags: []cli.Flag{session("the session claiming (required)"), ttl, &cli.StringFlag{Name: "reason", Usage: "why, for whoever reads the claim"}},
			},
			{
				Name: "release", Usage: "release a claim of the session (only its owner may)", Action: cmdClaimRelease,
				Flags: []cli.Flag{session("the session that owns the claim (required)"), id},
			},
			{
				Name: "renew", Usage: "extend a live claim of the session to --ttl minutes from now", Action: cmdClaimRenew,
				Flags: []cli.Flag{session("the session that owns the claim (required)"), id, ttl},
			},
			{
				Name: "list", Usage: "live claims (with --all, expired and released ones too)", Action: cmdClaimList,
				Flags: []cli.Flag{session("only this session's claims"), &cli.BoolFlag{Name: "all", Usage: "also expired and released claims"}},
			},
			{
				Name: "check", Usage: "exit 3 when another session holds one of the paths live (read only)",
				ArgsUsage: "PATH…", Action: cmdClaimCheck,
				Flags: []cli.Flag{session("the session asking: its own claims do not count (else every live claim does)")},
			},
		},
	}}
}

// claimStore finds the project's claims.
func (e *env) claimStore() (claims.Store, error) {
	dir, err := devritesOf(e.locator(), "claims live in .devrites/"+claims.File+": pass --root with the project directory")
	return claims.Store{Dir: dir, LockTimeout: e.c.Duration("lock-timeout"), Now: e.now}, err
}

// claimView is a claim as --json prints it.
type claimView struct {
	ID          string   `json:"id"`
	Session     string   `json:"session"`
	Paths       []string `json:"paths"`
	Reason      string   `json:"reason"`
	ClaimedAt   string   `json:"claimed_at"`
	ExpiresAt   string   `json:"expires_at"`
	State       string   `json:"state"`
	SecondsLeft int64    `json:"seconds_left"`
}

func (e *env) view(c claims.Claim) claimView {
	now := e.now()
	return claimView{c.ID, c.Session, nonNil(c.Paths), c.Reason, c.ClaimedAt, c.ExpiresAt, string(c.State(now)), c.SecondsLeft(now)}
}

// readClaims reads the claims and warns of the lines it skipped.
func (e *env) readClaims(s claims.Store) (*claims.Set, error) {
	set, err := s.Read()
	if err != nil {
		return nil, err
	}
	e.warn(s.Warnings(set.Problems))
	return set, nil
}

// requireSession refuses a missing --session, as DevRites does.
func requireSession(c *cli.Context) error {
	if !c.IsSet("session") {
		return claimUsage("--session is required")
	}
	return nil
}

func claimUsage(msg string) error { return mdstore.Errorf(claims.ErrUsage, "%s", msg) }

// ttlOf reads --ttl, warning when it is clamped.
func (e *env) ttlOf(c *cli.Context) int {
	ttl, clamped := claims.ClampTTL(c.Int("ttl"))
	if clamped {
		e.warn([]string{fmt.Sprintf("--ttl %d: a claim lasts %d to %d minutes; this one lasts %d", c.Int("ttl"), claims.MinTTL, claims.MaxTTL, ttl)})
	}
	return ttl
}

func cmdClaimAdd(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if err := requireSession(c); err != nil {
		return err
	}
	s, err := e.claimStore()
	if err != nil {
		return err
	}
	cl, err := s.Add(e.ctx, claims.AddRequest{Session: c.String("session"), Paths: c.Args().Slice(), Reason: c.String("reason"), TTL: e.ttlOf(c)})
	if he := (*claims.HeldError)(nil); errors.As(err, &he) {
		hints := heldHints(he.Holds, c.String("session"), c.Args().Slice())
		if e.json {
			return mdstore.WithHint(err, hints...)
		}
		// DevRites' lines, then how to go on; exit 3 as for a pause.
		for _, l := range blockedLines(he.Holds) {
			fmt.Fprintln(e.stderr, l)
		}
		for _, h := range hints {
			fmt.Fprintln(e.stderr, "hint: "+h)
		}
		return status(exitPaused)
	}
	if err != nil {
		return err
	}
	e.print(map[string]any{"claim": e.view(cl)}, fmt.Sprintf("claim: %s claimed %d path(s) until %s\n", cl.ID, len(cl.Paths), cl.ExpiresAt))
	return nil
}

// blockedLines are DevRites' lines for held paths.
func blockedLines(holds []claims.Hold) []string {
	out := make([]string, len(holds))
	for i, h := range holds {
		out[i] = fmt.Sprintf("claim: BLOCKED: %s held by session %q until %s", h.Path, h.Claim.Session, h.Claim.ExpiresAt)
	}
	return out
}

// heldHints say which claim holds a path it does not name, and how to go on.
func heldHints(holds []claims.Hold, session string, paths []string) []string {
	var out []string
	for _, h := range holds {
		if slices.Contains(h.Claim.Paths, h.Path) {
			continue
		}
		// Only the claim's paths that hold this one are named.
		for _, q := range h.Overlapping() {
			if q == "." || strings.HasPrefix(h.Path, q+"/") {
				out = append(out, fmt.Sprintf("%s is below %s, claimed by %s: a claim on a directory holds every path below it", h.Path, q, h.Claim.ID))
			} else {
				out = append(out, fmt.Sprintf("%s holds %s, claimed by %s: a directory is held while a path below it is claimed", h.Path, q, h.Claim.ID))
			}
		}
	}
	return append(out, "do work that does not touch these paths, then check again: devrites-engine claim check --session "+
		shellQuote(session)+" "+quoteAll(paths))
}

// quoteAll is words quoted for sh, joined by spaces.
func quoteAll(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}

// shellQuote is s as one word for sh: as it is when it holds only
// characters sh takes literally (paths and sessions mostly do), else in
// single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// heldJSON are the fields a held error adds to the JSON error: the first
// hold's owner and time, the paths that owner holds, and every hold.
func heldJSON(he *claims.HeldError) map[string]any {
	first := he.Holds[0].Claim
	var paths []string
	var holds []map[string]any
	for _, h := range he.Holds {
		if h.Claim.ID == first.ID {
			paths = append(paths, h.Path)
		}
		holds = append(holds, map[string]any{"path": h.Path, "id": h.Claim.ID, "owner": h.Claim.Session,
			"claim_paths": h.Claim.Paths, "until": h.Claim.ExpiresAt})
	}
	return map[string]any{"owner": first.Session, "paths": paths, "until": first.ExpiresAt, "held": holds}
}

func cmdClaimRelease(c *cli.Context) error {
	e, s, err := ownerEnv(c)
	if err != nil {
		return err
	}
	cl, err := s.Release(e.ctx, c.String("session"), c.String("id"))
	if err != nil {
		return claimHint(err, c)
	}
	e.print(map[string]any{"claim": e.view(cl)}, fmt.Sprintf("claim: %s released %d path(s)\n", cl.ID, len(cl.Paths)))
	return nil
}

func cmdClaimRenew(c *cli.Context) error {
	e, s, err := ownerEnv(c)
	if err != nil {
		return err
	}
	cl, err := s.Renew(e.ctx, c.String("session"), c.String("id"), e.ttlOf(c))
	if err != nil {
		return claimHint(err, c)
	}
	e.print(map[string]any{"claim": e.view(cl)}, fmt.Sprintf("claim: %s renewed %d path(s) until %s\n", cl.ID, len(cl.Paths), cl.ExpiresAt))
	return nil
}

// ownerEnv is what release and renew need: --session and --id.
func ownerEnv(c *cli.Context) (*env, claims.Store, error) {
	e, err := envOf(c)
	if err != nil {
		return nil, claims.Store{}, err
	}
	if err := requireSession(c); err != nil {
		return nil, claims.Store{}, err
	}
	if !c.IsSet("id") {
		return nil, claims.Store{}, claimUsage("--id is required")
	}
	s, err := e.claimStore()
	return e, s, err
}

// claimHint says what to do about a refused release or renewal.
func claimHint(err error, c *cli.Context) error {
	var ce *claims.Error
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case errors.Is(err, claims.ErrUnknown):
		return mdstore.WithHint(err, "see the claims: devrites-engine claim list --all")
	case errors.Is(err, claims.ErrNotOwner):
		return mdstore.WithHint(err, "only its owner releases or renews a claim; it holds its paths until "+ce.Claim.ExpiresAt)
	case errors.Is(err, claims.ErrNotLive) && !ce.Claim.Released:
		return mdstore.WithHint(err, "claim the paths again: devrites-engine claim add --session "+shellQuote(c.String("session"))+" "+quoteAll(ce.Claim.Paths))
	}
	return err
}

// checkClaims checks paths against the project's claims (claims.Store.Check)
// and warns of the lines it skipped.
func (e *env) checkClaims(session string, paths []string) (claims.Checked, error) {
	s, err := e.claimStore()
	if err != nil {
		return claims.Checked{}, err
	}
	chk, err := s.Check(session, paths)
	if err != nil {
		return claims.Checked{}, err
	}
	e.warn(s.Warnings(chk.Problems))
	return chk, nil
}

// raiseClaimCheck refuses a raise with --claim-check while another session
// holds one of the paths live (exit 3, naming the owner): a person's answer
// would not let the agent work on them, so it does other work and checks
// again. Without --claim-check it lets every raise through.
func (e *env) raiseClaimCheck(c *cli.Context) error {
	if !c.IsSet("claim-check") {
		if c.IsSet("session") {
			return mdstore.Errorf(errUsage, "--session goes with --claim-check")
		}
		return nil
	}
	session := c.String("session")
	if !c.IsSet("session") {
		return mdstore.WithHint(mdstore.Errorf(errUsage, "--claim-check needs --session"),
			"name the session raising, whose own claims do not hold it back: --session <name>")
	}
	if err := claims.CheckSession(session); err != nil {
		return err
	}
	chk, err := e.checkClaims(session, c.StringSlice("claim-check"))
	if err != nil {
		return err
	}
	if len(chk.Holds) > 0 {
		return mdstore.WithHint(&claims.HeldError{Holds: chk.Holds}, append([]string{"nothing was raised"}, heldHints(chk.Holds, session, chk.Paths)...)...)
	}
	return nil
}

func cmdClaimList(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if c.IsSet("session") {
		if err := claims.CheckSession(c.String("session")); err != nil {
			return err
		}
	}
	s, err := e.claimStore()
	if err != nil {
		return err
	}
	set, err := e.readClaims(s)
	if err != nil {
		return err
	}
	views := []claimView{}
	var b strings.Builder
	for _, cl := range set.Claims {
		v := e.view(cl)
		if c.IsSet("session") && cl.Session != c.String("session") || !c.Bool("all") && v.State != string(claims.Live) {
			continue
		}
		views = append(views, v)
		fmt.Fprintf(&b, "%s %s session=%s paths=%s until=%s\n", v.ID, v.State, v.Session, strings.Join(v.Paths, ","), v.ExpiresAt)
	}
	e.print(map[string]any{"claims": views}, b.String())
	return nil
}

func cmdClaimCheck(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	session := c.String("session")
	if c.IsSet("session") {
		if err := claims.CheckSession(session); err != nil {
			return err
		}
	}
	chk, err := e.checkClaims(session, c.Args().Slice())
	if err != nil {
		return err
	}
	paths, holds := chk.Paths, chk.Holds
	held := []map[string]any{}
	if len(holds) > 0 {
		held = heldJSON(&claims.HeldError{Holds: holds})["held"].([]map[string]any)
	}
	text := fmt.Sprintf("claim: free: %d path(s)\n", len(paths))
	if len(holds) > 0 {
		text = strings.Join(blockedLines(holds), "\n") + "\n"
	}
	e.print(map[string]any{"paths": paths, "free": len(holds) == 0, "held": held}, text)
	if len(holds) > 0 {
		return status(exitPaused)
	}
	return nil
}

func init() {
	examples["claim"] = `devrites-engine claim add --session agent-a --reason "rounding rule" pkg/pay`
	examples["claim add"] = examples["claim"]
	examples["claim release"] = "devrites-engine claim release --session agent-a --id cl-1795960931000000000-3f2a9c1b"
	examples["claim renew"] = "devrites-engine claim renew --session agent-a --id cl-1795960931000000000-3f2a9c1b --ttl 60"
	examples["claim list"] = "devrites-engine claim list --all --json"
	examples["claim check"] = "devrites-engine claim check --session agent-a pkg/pay docs/pay.md"
}
