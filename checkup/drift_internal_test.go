package checkup

import "testing"

func TestMentions(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"| question_id | q-2026-03-02-001 |", true},
		{"- 2026-03-02T10:00:00Z build: raised q-2026-03-02-001 (blocking)", true},
		{"resolved q-2026-03-02-001.", true},
		{"q-2026-03-02-001", true},
		{"q-2026-03-02-0012", false},
		{"xq-2026-03-02-001", false},
		{"q-2026-03-02-0012 and q-2026-03-02-001", true},
		{"", false},
	}
	for _, tt := range tests {
		if got := mentions([]byte(tt.text), "q-2026-03-02-001"); got != tt.want {
			t.Errorf("mentions(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
