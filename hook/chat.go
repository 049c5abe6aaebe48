package hook

import (
	"regexp"
	"strings"

	"github.com/devrites/devrites-engine/qid"
	"github.com/devrites/devrites-engine/question"
)

// Forms is the line that shows a person the chat answer forms, as the
// raise and the session context print it.
const Forms = "answer 2 | answer: <words> | reject: <reason> | drop: <reason> (add the qid after the first word to name another question)"

// chatAnswer is a prompt in one of the answer forms:
//
//	answer N                 answer: <words>        reject: <reason>
//	drop: <reason>           answer <qid> N         answer <qid>: <words> …
//
// The keyword is matched without regard to case; everything after the
// colon (or the number) is the person's text, kept verbatim but for the
// blank space around it.
type chatAnswer struct {
	QID  string // "" for the awaited question
	Kind string // engine.StatusAnswered, StatusRejected or StatusDropped
	Text string
}

var (
	formNumber = regexp.MustCompile(`(?i)^answer(?:[ \t]+(\S+))?[ \t]+([0-9]+)[ \t]*$`)
	formWords  = regexp.MustCompile(`(?is)^(answer|reject|drop)(?:[ \t]+([^\s:]+))?[ \t]*:(.*)$`)
)

var kindOf = map[string]string{"answer": question.StatusAnswered, "reject": question.StatusRejected, "drop": question.StatusDropped}

// parseChat reads a prompt; ok is false for every prompt not in a form.
func parseChat(prompt string) (chatAnswer, bool) {
	p := strings.TrimSpace(strings.ReplaceAll(prompt, "\r\n", "\n"))
	if m := formNumber.FindStringSubmatch(p); m != nil {
		if m[1] != "" && !qid.Shaped(m[1]) {
			return chatAnswer{}, false
		}
		return chatAnswer{QID: m[1], Kind: question.StatusAnswered, Text: m[2]}, true
	}
	m := formWords.FindStringSubmatch(p)
	if m == nil {
		return chatAnswer{}, false
	}
	if m[2] != "" && !qid.Shaped(m[2]) {
		return chatAnswer{}, false
	}
	text := strings.TrimSpace(m[3])
	if text == "" {
		return chatAnswer{}, false // "answer:" alone is talk, not an answer
	}
	return chatAnswer{QID: m[2], Kind: kindOf[strings.ToLower(m[1])], Text: text}, true
}
