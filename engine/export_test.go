package engine

// ParseBatch is ReadBatch for a batch that must parse whole, every
// malformed line reported: what the batch tests and fuzzing check.
func ParseBatch(s string) ([]Resolution, error) {
	b, err := ReadBatch(s)
	if err == nil {
		err = b.bad.err()
	}
	if err != nil {
		return nil, err
	}
	return b.Items, nil
}
