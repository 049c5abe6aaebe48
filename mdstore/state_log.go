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
		if t := s.d.line(i).text; f(t) != t {
			s.d.setText(i, f(t))
			changed = true
		}
	}
	return changed
}
