package mdstore

// Writing a doc out: its bytes, straight from the text read where no edit
// touched it, and the check that they equal what is on disk.

import (
	"bytes"
	"io"
	"strings"
	"unsafe"
)

// byteLen is the length of what bytes returns.
func (d *doc) byteLen() int {
	n := len(d.pre) + len(d.post)
	if d.bom {
		n += len(utf8BOM)
	}
	for _, l := range d.lines {
		n += len(l.text) + len(l.eol.String())
	}
	return n
}

func (d *doc) bytes() []byte {
	var b bytes.Buffer
	b.Grow(d.byteLen())
	_, _ = d.writeTo(&b) // a bytes.Buffer takes every write
	return b.Bytes()
}

// writeTo writes the bytes that bytes returns, without building them
// whole. What no edit touched goes out straight from the text read, in one
// piece for each stretch: a lazy doc's text before and after its window,
// and each run of lines that is still src's (unedited); other lines are
// gathered in pieces of up to 16 KB.
func (d *doc) writeTo(w io.Writer) (int64, error) {
	buf := make([]byte, 0, min(d.byteLen()-len(d.pre)-len(d.post), 16<<10))
	var n int64
	write := func(p []byte) error {
		if len(p) == 0 {
			return nil
		}
		k, err := w.Write(p)
		n += int64(k)
		return err
	}
	flush := func() error {
		err := write(buf)
		buf = buf[:0]
		return err
	}
	// out writes a stretch of the text read: a long one straight from it,
	// with no copy where w is an io.StringWriter (a file), after what the
	// buffer holds; a short one through the buffer.
	out := func(run string) error {
		if len(run) < 4<<10 {
			if len(buf)+len(run) > 16<<10 {
				if err := flush(); err != nil {
					return err
				}
			}
			buf = append(buf, run...)
			return nil
		}
		if err := flush(); err != nil {
			return err
		}
		k, err := io.WriteString(w, run)
		n += int64(k)
		return err
	}
	if d.bom {
		buf = append(buf, utf8BOM...)
	}
	if err := out(d.pre); err != nil {
		return n, err
	}
	for i := 0; i < len(d.lines); {
		if j, run := d.unedited(i); j > i {
			if err := out(run); err != nil {
				return n, err
			}
			i = j
			continue
		}
		l := d.lines[i]
		if eol := l.eol.String(); len(buf)+len(l.text)+len(eol) <= cap(buf) {
			buf = append(append(buf, l.text...), eol...)
		} else if err := flush(); err != nil {
			return n, err
		} else {
			buf = append(append(buf, l.text...), eol...) // a line longer than the buffer grows it
		}
		i++
	}
	if err := out(d.post); err != nil {
		return n, err
	}
	return n, flush()
}

// unedited returns the run of lines from i that are, byte for byte, a
// stretch of src: the index after its last line, and the stretch. Each line
// of the run starts in src where the one before it ended (line.at) and
// ends as src does there. The run is empty when line i is not src's.
func (d *doc) unedited(i int) (int, string) {
	if d.lines[i].at == 0 {
		return i, ""
	}
	start := int(d.lines[i].at - 1)
	pos, j := start, i
	for ; j < len(d.lines); j++ {
		l := d.lines[j]
		if int(l.at)-1 != pos || pos+len(l.text) > len(d.src) || !strings.HasPrefix(d.src[pos+len(l.text):], l.eol.String()) {
			break
		}
		pos += len(l.text) + len(l.eol.String())
	}
	return j, d.src[start:pos]
}

// equal reports whether bytes would return b.
func (d *doc) equal(b []byte) bool {
	if d.byteLen() != len(b) {
		return false // an edit that changes the size: no byte need be compared
	}
	s := unsafe.String(unsafe.SliceData(b), len(b))
	if d.bom {
		var ok bool
		if s, ok = strings.CutPrefix(s, utf8BOM); !ok {
			return false
		}
	}
	s, ok := strings.CutPrefix(s, d.pre)
	if !ok {
		return false
	}
	for _, l := range d.lines {
		eol := l.eol.String()
		if !strings.HasPrefix(s, l.text) || !strings.HasPrefix(s[len(l.text):], eol) {
			return false
		}
		s = s[len(l.text)+len(eol):]
	}
	return s == d.post
}
