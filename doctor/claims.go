package doctor

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/devrites/devrites-engine/claims"
	"github.com/devrites/devrites-engine/mdstore"
)

// staleClaim is how long after its expiry a claim that was never released
// is reported.
const staleClaim = 24 * time.Hour

// Claims reports, as warnings, the lines of .devrites/claims.jsonl
// that do not read and the claims that expired more than a day ago without
// being released. With fix, it ends a torn last line with a line break
// (an append, under the claims lock), so that a writer that does not start
// its record on a new line cannot glue it to the torn one. Nothing else is
// ever changed: the file is shared with DevRites, which appends without the
// lock, and a rewrite could lose a claim it appended meanwhile.
func (c *Checker) Claims(ctx context.Context, fix bool, lockTimeout time.Duration, now func() time.Time) {
	ws := c.WS
	if ws.Devrites == "" {
		return
	}
	file := c.DevritesFile(claims.File)
	s := claims.Store{Dir: ws.Devrites, LockTimeout: lockTimeout, Now: now}
	set, err := s.Read()
	if err != nil {
		problem := err.Error()
		if fi, lerr := os.Lstat(s.Path()); lerr == nil && !fi.Mode().IsRegular() {
			problem = "not a regular file (" + mdstore.FileType(fi.Mode()) + "); every claim command refuses it"
		}
		c.Add(Finding{Severity: SevError, Kind: "claims", File: file, Problem: problem,
			Mend: "make it a plain file holding the claims, or move it aside when no claim is live"})
		return
	}
	if fix && set.Unterminated {
		ended, err := s.EndLastLine(ctx)
		switch {
		case err != nil:
			c.Add(Finding{Severity: SevWarning, Kind: "claims", File: file, Line: set.Lines,
				Problem: "the last line has no line end; it could not be ended: " + err.Error(), Mend: "run doctor --fix again"})
		case ended:
			c.Repairs = append(c.Repairs, Repair{Kind: "claims", File: file, Line: set.Lines, Did: "ended the last line with a line break"})
			if set, err = s.Read(); err != nil {
				return
			}
		}
	}
	for _, p := range set.Problems {
		f := Finding{Severity: SevWarning, Kind: "claims", File: file, Line: p.Line, Problem: p.Text + "; the line is skipped",
			Mend: "nothing holds a path by this line; delete it when no agent is writing claims"}
		if p.Torn {
			f.Mend, f.Fixable = "doctor --fix ends it with a line break, so the next record starts on its own line", true
		}
		c.Add(f)
	}
	at := now()
	for _, cl := range set.Claims {
		if cl.State(at) != claims.Expired {
			continue
		}
		if t, ok := cl.Expires(); ok && at.Sub(t) <= staleClaim {
			continue
		}
		c.Add(Finding{Severity: SevWarning, Kind: "stale-claim", File: file, Line: cl.Line,
			Problem: fmt.Sprintf("claim %s of session %q expired at %s and was never released; it holds nothing", cl.ID, cl.Session, cl.ExpiresAt),
			Mend:    fmt.Sprintf("its owner releases it: devrites-engine claim release --session %s --id %s", cl.Session, cl.ID)})
	}
}
