package mdstore

import (
	"strings"
	"unicode"
)

// Field values in questions.md are YAML-style: "key: value" on one line, or a
// block scalar ("key: |", "key: |-", "key: |+", optionally with an indentation
// digit) followed by indented lines. The older form, a key with an empty value
// followed by indented lines, is read as well. The engine writes every value
// that a single line cannot carry exactly as a block scalar indented by four
// spaces, so text never starts a column-0 line. A plain value followed by
// indented lines continues on them, as in YAML, so that every indented line
// after a field belongs to it and an edit replaces them together.

// NormKey reduces a key to lower-case letters and digits, the form in which
// keys are compared: "Next step", "next_step" and "NEXT-STEP" are one key.
// It runs for every field of every block read, so the keys the engine
// writes come back without an allocation.
func NormKey(k string) string {
	if isNorm(k) {
		return k // the common case, without an allocation
	}
	if len(k) <= 32 {
		var buf [32]byte
		n := 0
		for i := 0; i < len(k); i++ {
			switch c := k[i]; {
			case c >= 0x80:
				return normRunes(k)
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				buf[n], n = c, n+1
			case c >= 'A' && c <= 'Z':
				buf[n], n = c+'a'-'A', n+1
			}
		}
		if s, ok := knownKeys[string(buf[:n])]; ok { // a lookup that does not allocate
			return s
		}
		return string(buf[:n])
	}
	return normRunes(k)
}

// knownKeys are the normalised keys written with a separator: "raised_at",
// "Question ID".
var knownKeys = map[string]string{}

func init() {
	for _, k := range []string{"raisedat", "answeredat", "answeredby", "blockingslices", "previousfeedback",
		"remindedat", "alwaysapprove", "questionid", "nextaction", "activeslice", "stopreason", "rescopepending"} {
		knownKeys[k] = k
	}
}

func normRunes(k string) string {
	var b strings.Builder
	for _, r := range k {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

func isNorm(k string) bool {
	for i := 0; i < len(k); i++ {
		if c := k[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// FieldLine splits a column-0 "key: value" line of questions.md or
// decisions.md as every reader does (its key as written: compare it through
// NormKey), for a scan of a file's bytes that does not parse its blocks.
func FieldLine(s string) (key, value string, ok bool) { return fieldLine(s) }

// fieldLine splits a column-0 "key: value" line. Keys start with a letter and
// hold letters, digits, spaces, '_' and '-'.
func fieldLine(s string) (key, value string, ok bool) {
	if s == "" || !isASCIILetter(s[0]) {
		return "", "", false
	}
	i := strings.IndexByte(s, ':')
	if i < 0 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		if !(isASCIILetter(c) || c >= '0' && c <= '9' || c == '_' || c == '-' || c == ' ') {
			return "", "", false
		}
	}
	rest := s[i+1:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false // "http://…" or "a:b" is not a field
	}
	return strings.TrimRight(s[:i], " "), strings.TrimSpace(rest), true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// scalarHeader parses a block scalar indicator such as "|", "|-", "|+", "|2-".
func scalarHeader(v string) (chomp byte, indent int, ok bool) {
	if v == "" || v[0] != '|' {
		return 0, 0, false
	}
	for _, c := range []byte(v[1:]) {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && indent == 0:
			indent = int(c - '0')
		default:
			return 0, 0, false
		}
	}
	return chomp, indent, true
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

func isIndented(s string) bool { return s != "" && (s[0] == ' ' || s[0] == '\t') }

// continuation returns the end (exclusive) of the value lines that follow a
// field line at i (lineSrc.valueEnd: blank or indented lines, without the
// empty ones at the end).
func continuation(lines []line, i int) int {
	_, n := lineSrc{lines: lines, cut: true}.valueEnd(i + 1)
	return i + 1 + n
}

// decodeBlock turns the lines of a block scalar (or of the older form) into
// its value.
func decodeBlock(header string, body []line) string {
	chomp, indent, isScalar := scalarHeader(header)
	if indent == 0 {
		// The first line with more than spaces and tabs sets the
		// indentation, as the writer's firstNonEmptyIndented assumes.
		for _, l := range body {
			if rest := strings.TrimLeft(l.text, " \t"); rest != "" {
				indent = len(l.text) - len(rest)
				break
			}
		}
	}
	parts := make([]string, len(body))
	for i, l := range body {
		t := l.text
		if indent == 0 {
			// Every line is spaces and tabs only: they are empty lines.
			parts[i] = ""
			continue
		}
		if len(t) >= indent && strings.TrimLeft(t[:indent], " \t") == "" {
			parts[i] = t[indent:]
		} else {
			parts[i] = strings.TrimLeft(t, " \t")
		}
	}
	if !isScalar {
		// The older form: trailing blank lines dropped, no final newline.
		for len(parts) > 0 && isBlank(parts[len(parts)-1]) {
			parts = parts[:len(parts)-1]
		}
		return strings.Join(parts, "\n")
	}
	if chomp == '+' {
		return strings.Join(parts, "\n") + "\n"
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	v := strings.Join(parts, "\n")
	if chomp == 0 && len(parts) > 0 {
		v += "\n"
	}
	return v
}

// foldPlain reads a plain value continued on indented lines, as YAML reads
// a multi-line plain scalar: the line breaks fold into spaces, and each empty
// line between them is a line break.
func foldPlain(first string, body []line) string {
	var b strings.Builder
	b.WriteString(first)
	empty := 0
	for _, l := range body {
		t := strings.TrimSpace(l.text)
		if t == "" {
			empty++
			continue
		}
		if empty > 0 {
			b.WriteString(strings.Repeat("\n", empty))
		} else {
			b.WriteByte(' ')
		}
		empty = 0
		b.WriteString(t)
	}
	return b.String()
}

// valueIndent is what the engine puts before each line of a value it
// writes over several lines: four spaces, past the three that CommonMark
// allows before a heading, a fence, a list item or a table row, so that no
// line of a value can be read as structure by any markdown reader, ours or
// another's. Values written by older versions with two spaces are read too.
const valueIndent = "    "

// encodeField renders key and value as the texts of the lines that carry them.
func encodeField(key, value string) []string {
	if fitsOneLine(value) {
		if value == "" {
			return []string{key + ":"}
		}
		return []string{key + ": " + value}
	}
	body := value
	header := "|"
	switch {
	case !strings.HasSuffix(value, "\n"):
		header = "|-"
	case strings.HasSuffix(value, "\n\n") || value == "\n":
		header = "|+"
		body = value[:len(value)-1]
	default:
		body = value[:len(value)-1]
	}
	parts := strings.Split(body, "\n")
	if parts[0] != "" && (parts[0][0] == ' ' || parts[0][0] == '\t') || firstNonEmptyIndented(parts) {
		header = "|4" + header[1:]
	}
	out := make([]string, 0, len(parts)+1)
	out = append(out, key+": "+header)
	for i, p := range parts {
		switch {
		case p != "":
			out = append(out, valueIndent+p)
		case header[len(header)-1] == '+' && allEmpty(parts[i:]):
			out = append(out, valueIndent) // kept trailing lines must not look like separators
		default:
			out = append(out, "")
		}
	}
	return out
}

func firstNonEmptyIndented(parts []string) bool {
	for _, p := range parts {
		if p != "" {
			return p[0] == ' ' || p[0] == '\t'
		}
	}
	return false
}

func allEmpty(parts []string) bool {
	for _, p := range parts {
		if p != "" {
			return false
		}
	}
	return true
}

// fitsOneLine reports whether value survives a "key: value" line exactly.
func fitsOneLine(v string) bool {
	if strings.ContainsAny(v, "\n\r") || strings.TrimSpace(v) != v {
		return false
	}
	if _, _, ok := scalarHeader(v); ok {
		return false
	}
	return true
}
