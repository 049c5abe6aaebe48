package relay

import (
	"testing"
	"time"
)

// A message updated with its outcome leaves Sent, and its fingerprint stays
// in Closed until its buttons expire, so that a late tap on it is known
// for the relay's own (tapped) and told why nothing was recorded.
func TestRemoveRefKeepsClosedUntilExpiry(t *testing.T) {
	now := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	rec := record{Sent: []sent{
		{QID: "q-2026-11-29-001", Fingerprint: "aa", Channel: "ntfy team", Ref: "m1"},
		{QID: "q-2026-11-29-002", Fingerprint: "bb", Channel: "ntfy team", Ref: "m2"},
	}}
	rec.removeRef("m1", "ntfy team", now, now.Add(time.Hour))
	if len(rec.Sent) != 1 || rec.Sent[0].Ref != "m2" {
		t.Fatalf("got sent %+v, want m2 alone", rec.Sent)
	}
	if len(rec.Closed) != 1 || rec.Closed[0].Fingerprint != "aa" || rec.Closed[0].Until != "2026-11-29T15:00:00Z" {
		t.Fatalf("got closed %+v, want aa until 15:00", rec.Closed)
	}
	later := now.Add(2 * time.Hour)
	rec.removeRef("m2", "ntfy team", later, later.Add(time.Hour))
	if len(rec.Sent) != 0 || len(rec.Closed) != 1 || rec.Closed[0].Fingerprint != "bb" {
		t.Fatalf("got sent %+v, closed %+v, want only bb closed (aa's buttons expired)", rec.Sent, rec.Closed)
	}
}
