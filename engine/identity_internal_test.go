package engine

import (
	"slices"
	"testing"

	"github.com/devrites/devrites-engine/mdstore"
)

// pausedInLog reads each Log line once; what it reads from each is here.
func TestPausedInLog(t *testing.T) {
	for _, c := range []struct {
		name string
		log  string
		want []string
	}{
		{"a raise pauses", "- 2026-11-29T10:00:00Z build: raised q-2026-11-29-001 (blocking)\n", []string{"q-2026-11-29-001"}},
		{"answered ends it", "- t build: raised q-2026-11-29-001 (blocking)\n- t build: answered q-2026-11-29-001; next: /rite-build\n", nil},
		{"rejected, dropped, auto-picked end theirs",
			"- t b: raised q-2026-11-29-001 (blocking)\n- t b: raised q-2026-11-29-002 (blocking)\n- t b: raised q-2026-11-29-003 (blocking)\n- t b: raised q-2026-11-29-004 (blocking)\n" +
				"- t b: rejected q-2026-11-29-001\n- t b: dropped q-2026-11-29-002\n- t b: auto-picked q-2026-11-29-003 (afk)\n",
			[]string{"q-2026-11-29-004"}},
		{"one line ends two", "- t b: raised q-2026-11-29-001 (blocking)\n- t b: raised q-2026-11-29-002 (blocking)\n- t b: answered q-2026-11-29-001, answered q-2026-11-29-002\n", nil},
		{"an id named otherwise ends nothing", "- t b: raised q-2026-11-29-001 (blocking)\n- t b: see q-2026-11-29-001 and raised q-x\n", []string{"q-2026-11-29-001"}},
		{"a provisional raise does not pause", "- t b: raised q-2026-11-29-001 (provisional)\n", nil},
		{"a raise without its gate does not pause", "- t b: raised q-2026-11-29-001\n", nil},
		{"a raise line ends nothing", "- t b: raised q-2026-11-29-001 (blocking)\n- t b: raised q-2026-11-29-002 (blocking) after answered q-2026-11-29-001\n", []string{"q-2026-11-29-001", "q-2026-11-29-002"}},
		{"not an id", "- t b: raised q-2026-11-29-001 (blocking)\n- t b: answered q-2026-11-29-00\n", []string{"q-2026-11-29-001"}},
	} {
		s := mdstore.ParseState([]byte("# State\n\n## Cursor\n| Key | Value |\n| --- | --- |\n| status | running |\n\n## Log\n" + c.log))
		if got := pausedInLog(s); !slices.Equal(got, c.want) {
			t.Errorf("%s: pausedInLog = %q, want %q", c.name, got, c.want)
		}
	}
}

// A scan finds the renumbered_from fields of the blocks as the grammar
// reads them: a key at column 0, in any spelling that normalises to it.
func TestScanEarlierIDs(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"in a block, a chain", "# Questions\n\n## q-2026-11-29-003\nstatus: open\nrenumbered_from: q-2026-11-29-001, q-2026-11-29-002\n", []string{"q-2026-11-29-001", "q-2026-11-29-002"}},
		{"at the end without a newline", "## q-2026-11-29-003\nrenumbered_from: q-2026-11-29-002", []string{"q-2026-11-29-002"}},
		{"indented: a value's text", "## q-2026-11-29-003\nquestion: |\n    renumbered_from: q-2026-11-29-002\n", nil},
		{"another key's tail", "## q-2026-11-29-003\nmoved_from: q-2026-11-29-002\nx_renumbered_from: q-2026-11-29-004\n", nil},
		{"none", "## q-2026-11-29-003\nstatus: open\n", nil},
		{"spelled otherwise", "## q-2026-11-29-003\nRenumbered From: q-2026-11-29-001\n\n## q-2026-11-29-004\nrenumbered-from: q-2026-11-29-002\r\n\n## q-2026-11-29-005\nRENUMBERED_FROM: q-2026-11-29-006\n",
			[]string{"q-2026-11-29-001", "q-2026-11-29-002", "q-2026-11-29-006"}},
		{"before any block: no question's field", "Renumbered from: q-2026-11-29-001\n\n## q-2026-11-29-003\nstatus: open\n", nil},
		{"a key that only starts so", "## q-2026-11-29-003\nrenumbered_from_x: q-2026-11-29-001\nreason: renumbered_from: q-2026-11-29-002\n", nil},
	} {
		var got []string
		for id := range scanBlocks(mdstore.ParseQuestions([]byte(c.text))).earlier {
			got = append(got, id)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: earlier = %q, want %q", c.name, got, c.want)
		}
	}
}
