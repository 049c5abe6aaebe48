package checkup

import (
	"errors"
	"strconv"
	"strings"

	"github.com/devrites/devrites-engine/doctor"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/sign"
)

// Doctor's checks of signed decisions (docs/signing.md): a signature that
// does not verify (the record changed after it was signed, naming what
// differs when the decision entry still holds what was signed), a signer
// no allowed_signers line lets sign for answered_by, signed_by that the
// signature does not back, and a signature a require-signature rule wants
// and no decision has. --fix never adds or removes a signature: only a
// person's key makes one.

// checkSignatures checks every final question's signature. A block is
// first looked at through two fields and its decision's signature: it is
// read as a Question only when a signature, signed_by or a
// require-signature rule concerns it.
func (d *checkup) checkSignatures(w *wsFiles) {
	var allowed *sign.Allowed
	var entries map[string]*mdstore.Block // decisions.md's signed entries, by title, read once
	rules := d.e.Rules.Requires()
	for _, b := range w.Questions.Blocks() {
		if b.Row() {
			continue
		}
		v, _ := b.Peek("status", "signedby")
		if v[0] == question.StatusOpen || v[0] == "" {
			continue
		}
		if entries == nil {
			entries = engine.SignedEntries(d.ledgerOf(w.Decisions))
		}
		entry := entries[engine.DecisionHeading(b.QID, v[0])]
		var sig string
		if entry != nil {
			s, _ := entry.Peek(engine.FieldSignature)
			sig = s[0]
		}
		if sig == "" && v[1] == "" && !rules {
			continue
		}
		q := question.FromBlock(b, d.e.Now())
		required := d.e.RequiresSignature(q) != nil
		if sig == "" && q.SignedBy == "" && !required {
			continue
		}
		if allowed == nil {
			a, warnings := d.e.AllowedSigners()
			allowed = &a
			for _, warn := range warnings {
				d.Add(doctor.Finding{Severity: doctor.SevWarning, Kind: "allowed-signers", File: d.DevritesFile(engine.AllowedSignersFile), Problem: warn,
					Mend: "fix the line (principals, then namespaces=, valid-after=, valid-before=, then the key), or trust the file here"})
			}
		}
		d.checkSignature(q, entry, sig, required, *allowed)
	}
}

func (d *checkup) checkSignature(q question.Question, entry *mdstore.Block, sig string, required bool, allowed sign.Allowed) {
	signAgain := "a person reads the decision and signs it: devrites-engine sign " + q.QID
	sev := doctor.SevWarning
	if required {
		sev = doctor.SevError
	}
	at := func(f doctor.Finding) doctor.Finding {
		f.File, f.Line = mdstore.QuestionsFile, q.Line
		return f
	}
	if strings.TrimSpace(sig) == "" {
		problem := q.QID + " " + q.Status + ", not yet signed: a require-signature rule holds the agent"
		if q.SignedBy != "" {
			problem = q.QID + " says signed_by " + q.SignedBy + ", but its decision holds no signature"
		}
		d.Add(at(doctor.Finding{Severity: sev, Kind: "signature", Problem: problem, Mend: signAgain}))
		return
	}
	signed, err := engine.VerifyStatement(engine.StatementOf(d.e.WS.Slug, q), sig, allowed)
	switch {
	case errors.Is(err, sign.ErrNotAllowed):
		d.Add(at(doctor.Finding{Severity: sev, Kind: "signature", Problem: q.QID + ": " + err.Error(),
			Mend: "list the key for " + q.AnsweredBy + " in .devrites/allowed_signers (then trust it) or this machine's allowed_signers; or " + signAgain}))
	case err != nil:
		d.Add(at(doctor.Finding{Severity: doctor.SevError, Kind: "signature",
			Problem: q.QID + ": the signature does not verify: the record changed after it was signed" + d.whatDiffers(q, entry, sig, allowed),
			Mend:    "restore what was signed from version control, or " + signAgain + " (doctor --fix never adds or removes a signature)"}))
	case q.SignedBy != signed.String():
		d.Add(at(doctor.Finding{Severity: doctor.SevWarning, Kind: "signature",
			Problem: q.QID + ": signed_by says " + strconv.Quote(q.SignedBy) + ", the signature is " + signed.String() + "'s",
			Mend:    "set signed_by to " + signed.String()}))
	}
}

// whatDiffers names the fields in which questions.md's block differs from
// what was signed, when the decision entry still holds what was signed
// (its copy of the answer, choice, answered_by and answered_at); else "".
func (d *checkup) whatDiffers(q question.Question, entry *mdstore.Block, sig string, allowed sign.Allowed) string {
	if entry == nil {
		return ""
	}
	was := q
	if v, ok := entry.Get("answer"); ok {
		was.Answer = &v
	}
	was.Choice = question.Atoi(entry.Value("choice"))
	was.AnsweredBy, was.AnsweredAt = entry.Value("answered_by"), entry.Value("answered_at")
	signedSt := engine.StatementOf(d.e.WS.Slug, was)
	if _, err := engine.VerifyStatement(signedSt, sig, allowed); errors.Is(err, sign.ErrBadSignature) || errors.Is(err, sign.ErrStatement) {
		return " (the question, its options or the decision entry changed too)"
	}
	diff := signedSt.Differs(engine.StatementOf(d.e.WS.Slug, q))
	if len(diff) == 0 {
		return ""
	}
	return " (questions.md's " + strings.Join(diff, ", ") + " differs from what " + mdstore.DecisionsFile + " recorded and was signed)"
}
