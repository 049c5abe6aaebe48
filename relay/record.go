package relay

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// RecordFile is where a workspace's relay keeps what it sent, beside the
// lock and notify.log, and as they are, out of git.
const RecordFile = "relay.json"

// sent is one message on one channel about an open question.
type sent struct {
	QID string `json:"qid"`
	// Fingerprint is the question's (engine.Fingerprint): what the
	// message is of, whatever id a merge gives the question later.
	Fingerprint string `json:"fingerprint,omitempty"`
	Channel     string `json:"channel"` // Channel.Name()
	Ref         string `json:"ref"`     // the service's id of the message
	SentAt      string `json:"sent_at"`
}

// record is a workspace's relay.json: the messages of questions still
// open. A message leaves Sent once it is updated with the outcome; its
// fingerprint stays in Closed until its buttons expire, so that a tap on
// it that arrives later is known for the relay's own and told why it
// records nothing, never taken for a forged one.
type record struct {
	Sent   []sent   `json:"sent"`
	Closed []closed `json:"closed,omitempty"`
}

// closed is a message updated with its outcome, whose buttons still carry
// an unexpired token.
type closed struct {
	Fingerprint string `json:"fingerprint"`
	Until       string `json:"until"` // when its buttons expire (RFC 3339)
}

func loadRecord(dir string) (record, error) {
	var r record
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, errors.New(filepath.Join(dir, RecordFile) + ": does not parse: " + err.Error() + "; delete it (every open question is sent again)")
	}
	return r, nil
}

// save writes the record atomically and makes sure the workspace's
// .gitignore lists it.
func (r record) save(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := mdstore.WriteAtomic(filepath.Join(dir, RecordFile), append(b, '\n')); err != nil {
		return err
	}
	return mdstore.Ignore(dir, "what devrites-engine relay sent, on this machine", RecordFile)
}

// removeRef drops the message ref of channel (two messages may carry one
// qid, when a merge gave the id of one question to another), keeping its
// fingerprint in Closed until until; entries already expired at now go.
func (r *record) removeRef(ref, channel string, now, until time.Time) {
	r.Sent = slices.DeleteFunc(r.Sent, func(s sent) bool {
		if s.Ref == ref && s.Channel == channel {
			if s.Fingerprint != "" {
				r.Closed = append(r.Closed, closed{s.Fingerprint, until.UTC().Format(time.RFC3339)})
			}
			return true
		}
		return false
	})
	r.Closed = slices.DeleteFunc(r.Closed, func(c closed) bool {
		t, err := time.Parse(time.RFC3339, c.Until)
		return err != nil || !now.Before(t)
	})
}
