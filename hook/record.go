package hook

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// Via is answered_via for what the hook records: the person's own words in
// the chat, or their pick in the harness's question tool.
const Via = "chat"

// prompt records a prompt in an answer form (chat.go); any other prompt,
// or one while nothing awaits and no qid is named, passes untouched.
func (env Env) prompt(ctx context.Context, a chatAnswer, w *workspaces) Reply {
	if w.err != nil {
		return Reply{Block: "devrites-engine: nothing was recorded: the workspace cannot be read: " + mdstore.OneLine(w.err.Error()) +
			"\nhint: run devrites-engine doctor"}
	}
	eng := (*engine.Engine)(nil)
	if a.QID == "" {
		if w.paused == nil || w.paused.question == nil {
			return Reply{} // nothing awaits: ordinary talk
		}
		eng, a.QID = w.paused.eng, w.paused.question.QID
	} else {
		for _, e := range w.engines {
			if _, err := e.Get(a.QID); err == nil {
				eng = e
				break
			}
		}
		if eng == nil {
			return Reply{Block: "devrites-engine: nothing was recorded: " + a.QID + ": unknown qid" +
				"\nhint: devrites-engine questions list shows the open questions"}
		}
	}
	res, err := env.record(ctx, eng, engine.Resolution{QID: a.QID, Kind: a.Kind, Text: a.Text, Via: Via})
	if err != nil {
		return Reply{Block: "devrites-engine: nothing was recorded: " + err.Error()}
	}
	return Reply{Context: recorded(res, "in the chat")}
}

// asked records the person's picks in the harness's question tool for each
// question asked that is an open question of the workspace, by its text.
func (env Env) asked(ctx context.Context, ev *Event, w *workspaces) Reply {
	if w.err != nil {
		return Reply{}
	}
	picks := askAnswers(ev.ToolInput, ev.ToolResponse)
	if len(picks) == 0 {
		return Reply{}
	}
	texts := make([]string, 0, len(picks))
	for t := range picks {
		texts = append(texts, t)
	}
	sort.Strings(texts)
	var said []string
	for _, e := range w.engines {
		v, err := e.Show()
		if err != nil {
			continue
		}
		for _, q := range v.Open {
			for _, t := range texts {
				if mdstore.OneLine(t) != mdstore.OneLine(q.Question) || strings.TrimSpace(picks[t]) == "" {
					continue
				}
				res, err := env.record(ctx, e, engine.Resolution{QID: q.QID, Kind: question.StatusAnswered, Text: picks[t], Via: Via})
				if err != nil {
					said = append(said, "DevRites: the person's pick for "+q.QID+" was not recorded: "+mdstore.OneLine(err.Error()))
					continue
				}
				said = append(said, recorded(res, "in the question tool"))
			}
		}
	}
	return Reply{Context: strings.Join(said, "\n")}
}

// record resolves through the transaction of state resolve, as this
// machine's person.
func (env Env) record(ctx context.Context, eng *engine.Engine, r engine.Resolution) (*engine.ResolveResult, error) {
	by, err := env.Answerer()
	if err != nil {
		return nil, err
	}
	return eng.Resolve(ctx, []engine.Resolution{r}, by)
}

// recorded tells the model what the hook recorded, so that it neither
// retypes nor records it again.
func recorded(res *engine.ResolveResult, where string) string {
	var b strings.Builder
	for _, r := range res.Resolved {
		what := r.Status
		if r.Choice != nil {
			what += fmt.Sprintf(" (option %d)", *r.Choice)
		}
		fmt.Fprintf(&b, "DevRites: the person answered %s %s; the hook recorded it: %s: %q.", r.QID, where, what, r.Answer)
		if r.Unchanged {
			b.WriteString(" (It was already recorded.)")
		}
		b.WriteString(" Do not record it again.")
		if r.NextAction != "" {
			b.WriteString(" Next: " + r.NextAction)
		}
	}
	return b.String()
}
