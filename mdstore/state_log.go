package mdstore

// MapLog rewrites the text of each line of the "## Log" section with f,
// which must keep a line one line (it maps the ids a line names, say);
// it reports whether a line changed. Nothing else of the file moves.
func (s *State) MapLog(f func(string) string) bool {
	l := s.section("log")
	if l == nil {
		return false
	}
	changed := false
	for i := l.head + 1; i < l.end; i++ {
		t := s.d.line(i).text
		if u := f(t); u != t {
			s.d.setText(i, u)
			changed = true
		}
	}
	return changed
}
