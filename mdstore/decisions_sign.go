package mdstore

// SetDecisionFields sets fields of the decisions.md entry titled title as
// Set sets a question block's: a field the entry has is replaced in place,
// the others are added at its end, every other byte is kept. An entry that
// is not there is an ErrNoQuestion error.
func SetDecisionFields(b []byte, title string, kvs ...KV) ([]byte, error) {
	q := parseLedger(b)
	if err := q.Set(title, kvs...); err != nil {
		return nil, err
	}
	return q.Bytes(), nil
}
