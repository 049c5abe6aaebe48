package config

import (
	"regexp"
	"strings"
	"sync"
)

// engine.yaml holds only templates of the engine's own commands
// (docs/formats.md, "engine.yaml"): its texts become state.md's
// next_action, which `state check` and MCP `check` hand to the agent as
// what to do next, so a file that came with a clone must not be able to
// put an instruction there. Rather than trust it like the AFK file, the
// engine accepts only a command's shape: one slash command (a skill such
// as /rite-resolve, /rite-{phase}) or one devrites-engine command, its words plain lowercase words, flags and the
// placeholders {qid}, {phase}, {slice} and "<answer>". A value of any
// other shape is not used (the default stays) and doctor reports it.

var (
	templateHead = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(/[a-z][a-z0-9-]*(\{phase\})?|devrites-engine)$`)
	})
	templateWord = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(--?[a-z][a-z0-9-]*|[a-z][a-z0-9._-]*|\{qid\}|\{phase\}|\{slice\}|"<answer>"|<answer>)$`)
	})
)

// templateProblem says why v cannot be the template of key, or "".
func templateProblem(key, v string) string {
	words := strings.Split(v, " ")
	if !templateHead().MatchString(words[0]) {
		return "want one slash command (/rite-…) or devrites-engine command, not " + quoteShort(words[0])
	}
	for _, w := range words[1:] {
		if !templateWord().MatchString(w) {
			return "want lowercase words, flags and the placeholders {qid}, {phase}, {slice} and \"<answer>\", not " + quoteShort(w)
		}
	}
	if key == "resume_command" && (!strings.Contains(v, "{qid}") || !strings.Contains(v, "<answer>")) {
		return "want {qid} and \"<answer>\": the command answers the question with the person's words"
	}
	return ""
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return `"` + s + `"`
}
