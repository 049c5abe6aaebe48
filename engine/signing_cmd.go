package engine

import (
	"context"
	"fmt"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/sign"
)

// SignResult is what `sign <qid>` did.
type SignResult struct {
	Question  question.Question `json:"question"`
	Statement sign.Statement    `json:"statement"`
	SignedBy  string            `json:"signed_by"`
}

// ToSign is the final question id names and the statement its signature
// covers, as the files read now: what `sign` shows before it signs.
func (e *Engine) ToSign(id string) (question.Question, sign.Statement, error) {
	q, err := e.Get(id)
	if err != nil {
		return question.Question{}, sign.Statement{}, err
	}
	if q.Status == question.StatusOpen {
		return q, sign.Statement{}, mdstore.Errorf(ErrNotOpen, "%s is open: there is no resolution to sign", q.QID).
			Hint("answer it first: " + e.ResolveCommand(q))
	}
	return q, StatementOf(e.WS.Slug, q), nil
}

// SignDecision signs the resolution of the final question id with s, in
// one transaction: the statement is made from the block as read under the
// lock, signed, checked against the allowed signers (a signature that
// would not count is refused), and only then are signed_by written to the
// block and the signature and signed_by to the decision entry. want, when
// given, is the statement the person was shown: a resolution that changed
// since is refused, so a person never signs what they did not read.
// A failed or cancelled signature writes nothing.
func (e *Engine) SignDecision(ctx context.Context, id string, want *sign.Statement, s Signer) (*SignResult, error) {
	if err := checkQID(id); err != nil {
		return nil, err
	}
	signer := memoSigner(s)
	return transact(ctx, e, func(f *Files) (*SignResult, error) {
		b, err := e.lookup(f.Questions, id)
		if err != nil {
			return nil, err
		}
		q := question.FromBlock(b, e.Now())
		if q.Status == question.StatusOpen {
			return nil, mdstore.Errorf(ErrNotOpen, "%s is open: there is no resolution to sign", q.QID)
		}
		st := StatementOf(e.WS.Slug, q)
		if want != nil && len(want.Differs(st)) > 0 {
			return nil, mdstore.Errorf(ErrConflict, "%s changed while it was shown (%v): nothing was signed", q.QID, want.Differs(st)).
				Hint("run the command again and read it anew")
		}
		e.completeDecision(f, q.QID)
		signed, sig, err := e.signStatement(signer, st)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.QID, err)
		}
		if err := f.Questions.Set(q.QID, mdstore.KV{Key: FieldSignedBy, Value: signed.String()}); err != nil {
			return nil, err
		}
		f.Decisions, err = mdstore.SetDecisionFields(f.Decisions, DecisionHeading(q.QID, q.Status),
			mdstore.KV{Key: FieldSignedBy, Value: signed.String()}, mdstore.KV{Key: FieldSignature, Value: sig})
		if err != nil {
			return nil, err
		}
		q.SignedBy = signed.String()
		return &SignResult{Question: q.Detached(), Statement: st, SignedBy: signed.String()}, nil
	})
}

// StoredSignature is the armored signature decisions.md holds for the
// final question q's resolution, "" when there is none.
func (e *Engine) StoredSignature(q question.Question) (string, error) {
	b, _, err := e.ReadUnlocked(mdstore.DecisionsFile)
	if err != nil {
		return "", err
	}
	return signatureOf(SignedEntries(mdstore.DecisionBlocks(b))[DecisionHeading(q.QID, q.Status)]), nil
}
