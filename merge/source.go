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

// File is the Source of the version in the file name (git's merge driver).
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

// version is a Source read once and summed up. A merge keeps of a
// version only what it needs between reads; read again, the version must
// still be the one summed up: one that changes while it is merged is an
// error, never data.
type version struct {
	src  Source
	name string   // "our questions.md", for errors
	sum  [32]byte // SHA-256 of its bytes
}

// reread reads the version again, which must be the one summed up.
func (v version) reread() ([]byte, error) {
	b, err := v.src.Bytes()
	if err != nil {
		return nil, err
	}
	if sha256.Sum256(b) != v.sum {
		return nil, fmt.Errorf("%s changed while it was merged", v.name)
	}
	return b, nil
}

// whole is the version as the result, read again.
func (v version) whole() (Result, error) {
	data, err := v.reread()
	if err != nil {
		return Result{}, err
	}
	return Result{Data: bytes.Clone(data)}, nil
}

// fetch reads again the text of the blocks in need, from a stream of the
// version: only their bytes are held.
func (f *qfile) fetch(need map[*qblock]bool) error {
	r, err := f.src.stream()
	if err != nil {
		return err
	}
	defer r.Close()
	c := &copier{name: f.name, r: r}
	var w bytes.Buffer
	for _, blk := range f.blocks {
		if need[blk] {
			w.Reset()
			if err := c.copyTo(&w, f.span(blk)); err != nil {
				return err
			}
			blk.text = w.String()
		}
	}
	return nil
}

// span is where a block's bytes are in the version.
func (f *qfile) span(b *qblock) span {
	off := int64(0)
	if f.bom {
		off = int64(len(utf8BOM))
	}
	return span{from: off + int64(b.start), to: off + int64(b.end), sum: b.sum}
}

// fetch reads again the text of the blocks the merge changes or adds: the
// versions of ours, theirs and the base of each question the merge
// changes, and theirs' blocks that come after ours. One version is read at
// a time, and only the texts needed are kept. Ours' last block is read
// too: what follows it is written after its last line. Ours' other blocks
// are copied into the result as they are, from a stream of ours (asIs).
func (p *plan) fetch() error {
	needB, needO, needT := map[*qblock]bool{}, map[*qblock]bool{}, map[*qblock]bool{}
	if n := len(p.o.blocks); n > 0 {
		needO[p.o.blocks[n-1]] = true
	}
	for _, o := range p.o.blocks {
		if _, ok := p.moved[o]; ok {
			needO[o] = true
		}
		if pr, ok := p.changes(o); ok {
			needO[o], needT[pr.t] = true, true
			if pr.base != nil {
				needB[pr.base] = true
			}
		}
	}
	for _, t := range p.added {
		needT[t] = true
	}
	for _, v := range []struct {
		f    *qfile
		need map[*qblock]bool
	}{{p.b, needB}, {p.o, needO}, {p.t, needT}} {
		if len(v.need) > 0 {
			if err := v.f.fetch(v.need); err != nil {
				return err
			}
		}
	}
	return nil
}

// asIs is a block of the version as the result has it unchanged: its
// lines when they were fetched, else its bytes, copied from a stream of
// the version when the result is written.
func (f *qfile) asIs(b *qblock) piece {
	if b.text != "" {
		return clean([]string{b.text}) // the block's lines as one
	}
	s := f.span(b)
	return piece{copied: &s}
}
