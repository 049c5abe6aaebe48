package merge

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

// Source is one version of a file, read when a merge asks: whole, or as a
// stream. A merge of questions.md reads each version when it needs it, and
// more than once, so that three versions of a large file are never all
// held at once: what it keeps of a version between reads is a summary of
// each block (ids, what the question is, a digest of its bytes) and the
// text outside the blocks. The zero Source is an empty version.
type Source struct {
	read func() ([]byte, error)
	open func() (io.ReadCloser, error) // the same bytes as read's
}

// Of is the Source of a version already read.
func Of(data []byte) Source {
	return Source{
		read: func() ([]byte, error) { return data, nil },
		open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
	}
}

// File is the Source of the version in the file name.
func File(name string) Source {
	return Source{
		read: func() ([]byte, error) { return os.ReadFile(name) },
		open: func() (io.ReadCloser, error) { return os.Open(name) },
	}
}

// Reader is the Source of the version read gives whole each time.
func Reader(read func() ([]byte, error)) Source {
	return Source{read: read}
}

// Bytes reads the whole version.
func (s Source) Bytes() ([]byte, error) {
	if s.read == nil {
		return nil, nil
	}
	return s.read()
}

// stream opens the version to be read from its start.
func (s Source) stream() (io.ReadCloser, error) {
	if s.open == nil {
		b, err := s.Bytes()
		return io.NopCloser(bytes.NewReader(b)), err
	}
	return s.open()
}

// copier writes stretches of a version, in the order they come in it, as
// they are read from a stream of it: a result made mostly of one version's
// bytes is written without that version being held whole beside it. Each
// stretch is checked against the digest it had when the version was
// summed up.
type copier struct {
	name string
	r    io.ReadCloser
	at   int64 // where the stream is
	err  error
}

// span is a stretch of a version's bytes, and the digest they had.
type span struct {
	from, to int64
	sum      [16]byte
}

// copyTo appends the stretch s of the version to w.
func (c *copier) copyTo(w *bytes.Buffer, s span) error {
	if c.err != nil {
		return c.err
	}
	if s.from < c.at {
		return fmt.Errorf("%s: stretch %d–%d read out of order", c.name, s.from, s.to)
	}
	if _, err := io.CopyN(io.Discard, c.r, s.from-c.at); err != nil {
		c.err = fmt.Errorf("%s changed while it was merged (%v)", c.name, err)
		return c.err
	}
	n := int(s.to - s.from)
	w.Grow(n)
	b := w.AvailableBuffer()[:n]
	if _, err := io.ReadFull(c.r, b); err != nil {
		c.err = fmt.Errorf("%s changed while it was merged (%v)", c.name, err)
		return c.err
	}
	if sum := sha256.Sum256(b); [16]byte(sum[:16]) != s.sum {
		c.err = fmt.Errorf("%s changed while it was merged", c.name)
		return c.err
	}
	w.Write(b)
	c.at = s.to
	return nil
}
