package app

// Signed decisions (docs/signing.md): `sign <qid>` shows what a resolution
// made elsewhere says and signs it with this machine's person's key;
// state resolve and answer at a terminal sign as they record, when a key
// is configured (atTerminal).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/machine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/sign"
)

func signCommands() []*cli.Command {
	return []*cli.Command{{
		Name:      "sign",
		Usage:     "show what a question's resolution says and sign it with your SSH key (signing_key in this machine's config.yaml)",
		ArgsUsage: "<qid>",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "statement", Usage: "print the exact statement a signature covers, and sign nothing (for ssh-keygen -Y verify)"},
			&cli.BoolFlag{Name: "signature", Usage: "print the stored signature, and sign nothing"},
		},
		Action: cmdSign,
	}}
}

// signingKey is this machine's person's key, or an error that says how to
// configure one.
func signingKey() (string, error) {
	cfg, err := machine.Load()
	if err != nil {
		return "", mdstore.Errorf(engine.ErrBadArgs, "%v", err)
	}
	if cfg.SigningKey == "" {
		return "", mdstore.Errorf(engine.ErrBadArgs, "no signing key is configured").
			Hint("add signing_key: ~/.ssh/id_ed25519.pub to " + cfg.Path() + " (docs/signing.md)")
	}
	return cfg.SigningKey, nil
}

// signer is sign.Sign with key, ssh-keygen's prompts going to stderr.
func (e *env) signer(key string) engine.Signer {
	return func(msg []byte) (string, error) { return sign.Sign(e.ctx, key, msg, e.stderr) }
}

// atTerminal makes eng record what a person at a terminal answers as
// this machine's person: under the name config.yaml gives (when --by does
// not name another), signed when it gives a signing key. Without a
// terminal, or without such settings, nothing changes.
func (e *env) atTerminal(eng *engine.Engine) error {
	if !e.terminal() {
		return nil
	}
	cfg, err := machine.Load()
	if err != nil {
		return mdstore.Errorf(engine.ErrBadArgs, "%v", err)
	}
	if cfg.Name != "" {
		if err := config.CheckName("name ("+cfg.Path()+")", cfg.Name); err != nil {
			return err
		}
		eng.Actor = cfg.Name
	}
	if cfg.SigningKey != "" {
		eng.SetSigner(e.signer(cfg.SigningKey))
	}
	return nil
}

func cmdSign(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return mdstore.Errorf(errUsage, "want one <qid>, got %s", question.Plural(c.NArg(), "argument"))
	}
	id := c.Args().First()
	eng, err := e.openFor(id)
	if err != nil {
		return err
	}
	if c.Bool("statement") || c.Bool("signature") {
		return printSigned(c, e, eng, id)
	}
	key, err := signingKey()
	if err != nil {
		return err
	}
	q, st, err := eng.ToSign(id)
	if err != nil {
		return err
	}
	if !e.json {
		// What the person signs, in plain words, before ssh-keygen asks
		// for the touch, the confirmation or the passphrase.
		fmt.Fprint(e.stderr, statementText(q, st))
		fmt.Fprintf(e.stderr, "signing with %s (namespace %s)\n", key, sign.Namespace)
	}
	res, err := eng.SignDecision(e.ctx, id, &st, e.signer(key))
	if err != nil {
		return err
	}
	e.print(res, fmt.Sprintf("signed %s: signed_by %s\n", res.Question.QID, res.SignedBy))
	return nil
}

// statementText is a statement in plain words:
//
//	q-2026-11-29-001 in pay (question 3f2a9c1b8d4e): Which rounding?
//	answered with option 2: Half up
//	by alice at 2026-11-29T14:05:00Z (via ntfy)
func statementText(q question.Question, st sign.Statement) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s in %s (question %s): %s\n", q.QID, st.Slug, question.ShortFingerprint(st.Fingerprint), mdstore.OneLine(q.Question))
	what := st.Verdict
	if st.Choice > 0 {
		what += " with option " + strconv.Itoa(st.Choice)
	}
	fmt.Fprintf(&b, "%s: %s\n", what, quoteLines(st.Text))
	via := ""
	if q.AnsweredVia != "" {
		via = " (via " + q.AnsweredVia + ")"
	}
	fmt.Fprintf(&b, "by %s at %s%s\n", st.AnsweredBy, st.AnsweredAt, via)
	return b.String()
}

// quoteLines keeps a text of several lines readable under its heading.
func quoteLines(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return "\n  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// printSigned prints, byte for byte, the statement of a final question or
// its stored signature: what `ssh-keygen -Y verify` reads to check a
// decision without the engine (docs/signing.md).
func printSigned(c *cli.Context, e *env, eng *engine.Engine, id string) error {
	if c.Bool("statement") && c.Bool("signature") {
		return mdstore.Errorf(errUsage, "--statement and --signature exclude each other")
	}
	q, st, err := eng.ToSign(id)
	if err != nil {
		return err
	}
	if c.Bool("statement") {
		msg, err := st.Bytes()
		if err != nil {
			return mdstore.Errorf(engine.ErrBadArgs, "%v", err)
		}
		_, err = e.stdout.Write(msg)
		return err
	}
	sig, err := eng.StoredSignature(q)
	if err != nil {
		return err
	}
	if sig == "" {
		return mdstore.Errorf(engine.ErrBadArgs, "%s is not signed", q.QID).Hint("sign it: devrites-engine sign " + q.QID)
	}
	if !strings.HasSuffix(sig, "\n") {
		sig += "\n"
	}
	_, err = fmt.Fprint(e.stdout, sig)
	return err
}
