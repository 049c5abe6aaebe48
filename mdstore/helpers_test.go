package mdstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fixtureDir holds markdown files shared by the unit tests and the fuzz seeds.
const fixtureDir = "../testdata/fixtures"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fixtures(t testing.TB, glob string) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(fixtureDir, glob))
	if err != nil || len(names) == 0 {
		t.Fatalf("no fixtures match %s: %v", glob, err)
	}
	out := map[string][]byte{}
	for _, n := range names {
		out[filepath.Base(n)] = fixture(t, filepath.Base(n))
	}
	return out
}

// fieldList is a block's fields as "key=value" pairs, in order.
func fieldList(b *Block) []KV {
	out := []KV{}
	for _, f := range b.Fields() {
		out = append(out, KV{f.Key, f.Value})
	}
	return out
}

func sameKVs(a, b []KV) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// withoutKey drops the first field whose key matches key after NormKey.
func withoutKey(kvs []KV, key string) []KV {
	n := NormKey(key)
	out := []KV{}
	dropped := false
	for _, kv := range kvs {
		if !dropped && NormKey(kv.Key) == n {
			dropped = true
			continue
		}
		out = append(out, kv)
	}
	return out
}

// linesBytes renders lines [from, to) of a doc. d is a copy: a lazy doc
// the test holds stays as lazy as it was.
func linesBytes(d doc, from, to int) string {
	var b strings.Builder
	for _, l := range d.all()[from:to] {
		b.WriteString(l.text + l.eol.String())
	}
	return b.String()
}

// lineOf is the text of line i of a doc, leaving the doc as it is.
func lineOf(d doc, i int) string { return d.line(i).text }

// cleanValue normalises text as the engine does before storing it: valid
// UTF-8, no NUL, line breaks as "\n".
func cleanValue(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// fieldKey turns arbitrary text into a key a field line can carry.
func fieldKey(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		}
	}
	k := strings.TrimLeft(b.String(), "0123456789_-")
	if k == "" || !utf8.ValidString(k) {
		return "answer"
	}
	return k
}
