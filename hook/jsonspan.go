package hook

import (
	"encoding/json"
	"strings"
)

// A settings file is edited by splicing bytes: the parser below finds where
// each value and member is, so that install inserts the engine's text and
// uninstall cuts exactly it, and every other byte stays as the person wrote
// it. The file is checked with json.Valid first; the parser trusts that.

// jnode is a JSON value and where it is: [start, end) in the file.
type jnode struct {
	start, end int
	kind       byte // '{', '[', '"' or 'v' (number, true, false, null)
	members    []jmember
	elems      []*jnode
}

// jmember is an object's member: its key (decoded) and where the key starts.
type jmember struct {
	keyStart int
	key      string
	val      *jnode
}

func (n *jnode) member(key string) (int, *jnode) {
	for i, m := range n.members {
		if m.key == key {
			return i, m.val
		}
	}
	return -1, nil
}

type jparser struct {
	s string
	i int
}

func parseSpans(s string) *jnode {
	p := &jparser{s: s}
	return p.value()
}

func (p *jparser) ws() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *jparser) value() *jnode {
	p.ws()
	n := &jnode{start: p.i}
	switch p.s[p.i] {
	case '{':
		n.kind = '{'
		p.i++
		for {
			p.ws()
			if p.s[p.i] == '}' {
				p.i++
				break
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			ks := p.i
			k := p.str()
			var key string
			_ = json.Unmarshal([]byte(k), &key)
			p.ws()
			p.i++ // ':'
			n.members = append(n.members, jmember{keyStart: ks, key: key, val: p.value()})
		}
	case '[':
		n.kind = '['
		p.i++
		for {
			p.ws()
			if p.s[p.i] == ']' {
				p.i++
				break
			}
			if p.s[p.i] == ',' {
				p.i++
				continue
			}
			n.elems = append(n.elems, p.value())
		}
	case '"':
		n.kind = '"'
		p.str()
	default:
		n.kind = 'v'
		for p.i < len(p.s) && strings.IndexByte(",]} \t\r\n", p.s[p.i]) < 0 {
			p.i++
		}
	}
	n.end = p.i
	return n
}

// str reads a string token and returns it with its quotes.
func (p *jparser) str() string {
	start := p.i
	p.i++
	for p.s[p.i] != '"' {
		if p.s[p.i] == '\\' {
			p.i++
		}
		p.i++
	}
	p.i++
	return p.s[start:p.i]
}

// lineIndent is the blank space before pos on its line, and whether only
// blank space precedes pos there (false in a one-line file).
func lineIndent(s string, pos int) (string, bool) {
	i := pos
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\t') {
		i--
	}
	if i > 0 && s[i-1] != '\n' {
		return "", false
	}
	return s[i:pos], true
}

// lineBase is the blank space that starts the line holding pos.
func lineBase(s string, pos int) string {
	line := s[strings.LastIndexByte(s[:pos], '\n')+1 : pos]
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

// indentUnit is the file's indentation step: the blank space that starts
// its first indented line, two spaces when it has none.
func indentUnit(s string) string {
	for _, line := range strings.Split(s, "\n")[1:] {
		t := strings.TrimLeft(line, " \t")
		if t != "" && len(t) < len(line) {
			return line[:len(line)-len(t)]
		}
	}
	return "  "
}

// render is v as JSON text at an indentation: indented when the file is,
// on one line when it is not.
func render(v any, indent, unit string, multiline bool) string {
	var b []byte
	if multiline {
		b, _ = json.MarshalIndent(v, indent, unit)
	} else {
		b, _ = json.Marshal(v)
	}
	return strings.ReplaceAll(string(b), `\u0026`, "&") // json escapes & < >; a command reads better without
}

// insertMember adds `"key": v` as the last member of obj.
func insertMember(s string, obj *jnode, key string, v any) string {
	unit := indentUnit(s)
	k, _ := json.Marshal(key)
	if len(obj.members) == 0 {
		base := lineBase(s, obj.start)
		in := base + unit
		text := "\n" + in + string(k) + ": " + render(v, in, unit, true) + "\n" + base
		return s[:obj.start+1] + text + s[obj.end-1:]
	}
	last := obj.members[len(obj.members)-1]
	in, multi := lineIndent(s, last.keyStart)
	text := ","
	if multi {
		text += "\n" + in
	}
	text += string(k) + ": " + render(v, in, unit, multi)
	return s[:last.val.end] + text + s[last.val.end:]
}

// insertElem adds v as the last element of arr.
func insertElem(s string, arr *jnode, v any) string {
	unit := indentUnit(s)
	if len(arr.elems) == 0 {
		base := lineBase(s, arr.start)
		in := base + unit
		return s[:arr.start+1] + "\n" + in + render(v, in, unit, true) + "\n" + base + s[arr.end-1:]
	}
	last := arr.elems[len(arr.elems)-1]
	in, multi := lineIndent(s, last.start)
	text := ","
	if multi {
		text += "\n" + in
	}
	return s[:last.end] + text + render(v, in, unit, multi) + s[last.end:]
}

// cut removes item i of a container whose items start at starts and end at
// ends, with the separator that joined it: the exact inverse of the
// inserts above.
func cut(s string, container *jnode, starts, ends []int, i int) string {
	switch {
	case len(starts) == 1:
		return s[:container.start+1] + s[container.end-1:]
	case i > 0:
		return s[:ends[i-1]] + s[ends[i]:]
	default:
		return s[:starts[0]] + s[starts[1]:]
	}
}

func cutMember(s string, obj *jnode, i int) string {
	starts, ends := make([]int, len(obj.members)), make([]int, len(obj.members))
	for j, m := range obj.members {
		starts[j], ends[j] = m.keyStart, m.val.end
	}
	return cut(s, obj, starts, ends, i)
}

func cutElem(s string, arr *jnode, i int) string {
	starts, ends := make([]int, len(arr.elems)), make([]int, len(arr.elems))
	for j, e := range arr.elems {
		starts[j], ends[j] = e.start, e.end
	}
	return cut(s, arr, starts, ends, i)
}
