package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mcp"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
	"github.com/devrites/devrites-engine/relay"
	"github.com/devrites/devrites-engine/relay/standin"
	"github.com/devrites/devrites-engine/serve"
)

// A person's word is bound to the question, not to its id (docs/formats.md, "Question fingerprint"),
// replayed with real git: clone b raises "Delete the old prod backups?"
// and pushes; clone a raises "Deploy window?", which gets the same id,
// q-2026-11-29-001, and sends it to the person (a tap, a page, a form);
// then a runs git pull --rebase, and the merge driver gives b's question
// the id and a's q-2026-11-29-002. The answer made for a's question lands
// on it under its new id, or is refused; never on b's, which stays open
// with its block as it was.

const (
	deploy  = "Deploy window?"
	backups = "Delete the old prod backups?"
	oldID   = "q-2026-11-29-001"
	newID   = "q-2026-11-29-002"
)

// rebaseLab is a lab whose clone b raised the backups question and pushed
// it.
func rebaseLab(t *testing.T) *gitLab {
	t.Helper()
	l := clonedWorkspace(t, func(*gitLab) {})
	l.at("b", "2026-11-29T14:05:00Z", "question", "raise", "--gate", "blocking", "--question", backups,
		"--option", "Yes, delete them", "--option", "No")
	l.save("b", "backups")
	l.run("b", "git", "push", "-q", "origin", "main")
	return l
}

// raiseDeploy raises a's question, which takes the id b's has.
func (l *gitLab) raiseDeploy() {
	l.t.Helper()
	l.at("a", gitNow, "question", "raise", "--gate", "blocking", "--question", deploy, "--option", "Friday", "--option", "Monday")
	if id := l.qidOf("a", deploy); id != oldID {
		l.t.Fatalf("a's question is %s, want %s", id, oldID)
	}
}

// pullRebase commits what a changed (the .gitignore lines of the key and
// of relay.json) and runs git pull --rebase: b's question keeps the id.
func (l *gitLab) pullRebase() {
	l.t.Helper()
	l.save("a", "deploy window")
	l.run("a", "git", "pull", "-q", "--rebase")
	if a, b := l.qidOf("a", deploy), l.qidOf("a", backups); a != newID || b != oldID {
		l.t.Fatalf("after the rebase: %q is %s and %q is %s, want %s and %s", deploy, a, backups, b, newID, oldID)
	}
}

// block is the text of the block of question in clone: its heading and
// fields, to prove an answer left it as it was.
func (l *gitLab) block(clone, question string) string {
	l.t.Helper()
	for _, b := range l.blocksOf(clone, question) {
		return fmt.Sprintf("%s %v", b.QID, b.Fields())
	}
	return ""
}

// engineOfClone opens clone's workspace pay in this process.
func (l *gitLab) engineOfClone(clone string) *engine.Engine {
	l.t.Helper()
	ws, err := mdstore.Find(mdstore.Locator{Root: filepath.Join(l.dir, clone), Slug: "pay"})
	if err != nil {
		l.t.Fatal(err)
	}
	eng, err := engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "")
	if err != nil {
		l.t.Fatal(err)
	}
	return eng
}

var clock = time.Date(2026, 11, 29, 14, 10, 0, 0, time.UTC)

// checkPrinted: the id alone is ambiguous to a person now (exit 6, both
// named); the command printed for a's question carries its fingerprint.
func (l *gitLab) checkPrinted() {
	l.t.Helper()
	code, _, errs := l.exec("a", engineName, "state", "resolve", oldID, "1")
	if code != exitMalformed || !strings.Contains(errs, deploy) || !strings.Contains(errs, backups) {
		l.t.Errorf("state resolve %s 1: exit %d, want 6 naming both questions:\n%s", oldID, code, errs)
	}
	out := l.run("a", engineName, "questions", "show", newID)
	if !regexp.MustCompile(`(?m)^resolve: devrites-engine state resolve --fingerprint [0-9a-f]{12} ` + newID + ` "<answer>"$`).MatchString(out) {
		l.t.Errorf("questions show %s prints no --fingerprint:\n%s", newID, out)
	}
}

// checkOutcome: a's question, under its new id, is what the answer
// recorded (or, when answered is "", still open), and b's is open with its
// block as it was.
func (l *gitLab) checkOutcome(theirs, answered string) {
	l.t.Helper()
	if got := l.block("a", backups); got != theirs {
		l.t.Errorf("b's question changed:\n got %s\nwant %s", got, theirs)
	}
	for _, b := range l.blocksOf("a", backups) {
		if b.Value("status") != question.StatusOpen {
			l.t.Errorf("b's question is %s, want open", b.Value("status"))
		}
	}
	for _, b := range l.blocksOf("a", deploy) {
		want := question.StatusAnswered
		if answered == "" {
			want = question.StatusOpen
		}
		if b.Value("status") != want || answered != "" && b.Value("answer") != answered {
			l.t.Errorf("a's question %s: %s %q, want %s %q", b.QID, b.Value("status"), b.Value("answer"), want, answered)
		}
	}
}

// syncLog is the relay's log, read while it runs.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncLog) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncLog) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// waitFor waits for ok, or fails naming what.
func waitFor(t *testing.T, what string, ok func() bool, shown ...fmt.Stringer) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("no %s after 10s%s", what, fmt.Sprint(shown))
}

// relayOf is a relay of clone a to an ntfy stand-in.
func (l *gitLab) relayOf(srv *standin.Ntfy, log *syncLog) *relay.Relay {
	l.t.Helper()
	devrites := filepath.Join(l.dir, "a", ".devrites")
	key, err := caplink.Ensure(devrites)
	if err != nil {
		l.t.Fatal(err)
	}
	open := func(ws *mdstore.Workspace) (*engine.Engine, error) {
		return engine.Open(ws, func() time.Time { return clock }, 5*time.Second, "")
	}
	return relay.New(relay.Config{Devrites: devrites, Open: open, Key: key, Now: func() time.Time { return clock }, Log: log,
		Channels: []relay.Channel{&relay.Ntfy{Server: srv.URL, Topic: "team", ReplyTopic: "team-replies"}},
		Every:    20 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
}

// TestFingerprintRelayTap: the notification of a's question, sent before
// the rebase; its "1. Friday" tapped after it records Friday on a's
// question, now q-2026-11-29-002. The relay sends it again under its new
// id and tells the old copy, and b's question is never answered by it.
func TestFingerprintRelayTap(t *testing.T) {
	l := rebaseLab(t)
	l.raiseDeploy()
	srv := standin.NewNtfy("")
	defer srv.Close()
	log := &syncLog{}
	r := l.relayOf(srv, log)
	r.Once(context.Background())
	msgs := srv.Messages("team")
	if len(msgs) != 1 || !strings.Contains(msgs[0].Message, deploy) || len(msgs[0].Actions) == 0 || !strings.HasPrefix(msgs[0].Actions[0].Label, "1. Friday") {
		t.Fatalf("sent %+v, want the deploy question with its buttons", msgs)
	}
	sent := msgs[0]

	l.pullRebase()
	l.checkPrinted()
	theirs := l.block("a", backups)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	// The old copy is told, and the question sent again under its id now.
	waitFor(t, "update of the old copy", func() bool {
		for _, m := range srv.Messages("team") {
			if m.SequenceID == sent.ID && strings.Contains(m.Message, "Renumbered: this question is "+newID+" now") {
				return true
			}
		}
		return false
	})
	waitFor(t, "message of "+newID, func() bool {
		for _, m := range srv.Messages("team") {
			if m.ID != sent.ID && m.SequenceID == "" && strings.Contains(m.Title, newID) && strings.Contains(m.Message, deploy) {
				return true
			}
		}
		return false
	})

	if err := srv.Press(sent, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the tap's answer in the log", func() bool {
		return strings.Contains(log.String(), "pay/"+newID+" answered (option 1): Friday by ntfy on ntfy team")
	})
	if strings.Contains(log.String(), "Yes, delete them by") {
		t.Errorf("the tap answered b's question:\n%s", log)
	}
	l.checkOutcome(theirs, "Friday")
	// b's question, which the relay never sent, is sent once the pause
	// moves to it, under the id it holds: the record of a's message under
	// that id does not stand for it.
	waitFor(t, "message of b's question", func() bool {
		for _, m := range srv.Messages("team") {
			if m.SequenceID == "" && strings.Contains(m.Title, oldID) && strings.Contains(m.Message, backups) {
				return true
			}
		}
		return false
	})
}

// TestFingerprintRelayTapRefused: the tap comes after a switch to a branch
// where a's question is not, and b's holds its id: refused, logged and
// told; nothing is recorded.
func TestFingerprintRelayTapRefused(t *testing.T) {
	l := rebaseLab(t)
	l.raiseDeploy()
	srv := standin.NewNtfy("")
	defer srv.Close()
	log := &syncLog{}
	r := l.relayOf(srv, log)
	r.Once(context.Background())
	sent := srv.Messages("team")[0]

	l.save("a", "deploy window")
	l.run("a", "git", "fetch", "-q")
	l.run("a", "git", "checkout", "-q", "-b", "theirs", "origin/main")
	theirs := l.block("a", backups)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if err := srv.Press(sent, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the refusal in the log", func() bool {
		return strings.Contains(log.String(), "refused a tap by ntfy on ntfy team: the question changed")
	}, log)
	if got := l.block("a", backups); got != theirs || strings.Contains(log.String(), " answered ") {
		t.Errorf("b's question changed:\n got %s\nwant %s\n%s", got, theirs, log)
	}
	if len(l.blocksOf("a", deploy)) != 0 {
		t.Error("a's question is on the branch")
	}
	// ntfy shows no reply to a tap: the channel is told on the message.
	waitFor(t, "the old copy saying the question changed", func() bool {
		for _, m := range srv.Messages("team") {
			if m.SequenceID == sent.ID && strings.Contains(m.Message, "The question changed") && len(m.Actions) == 0 {
				return true
			}
		}
		return false
	})
}

// pageRequest is a request as a browser at 127.0.0.1 sends it.
func pageRequest(method, target string, form url.Values) *http.Request {
	body := ""
	if form != nil {
		body = form.Encode()
	}
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Host, r.RemoteAddr = "127.0.0.1:7878", "127.0.0.1:40000"
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return r
}

// openPage serves clone a and opens the page of a's question from the
// inbox, as a person does: it returns the server, the link and the form's
// CSRF token.
func (l *gitLab) openPage() (*serve.Server, string, string) {
	l.t.Helper()
	s, err := serve.New(serve.Config{Roots: []string{filepath.Join(l.dir, "a")}, Now: func() time.Time { return clock },
		Burst: 1000, LockTimeout: time.Second, Poll: 20 * time.Millisecond})
	if err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(s.Close)
	get := func(target string) string {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, pageRequest(http.MethodGet, target, nil))
		if w.Code != http.StatusOK {
			l.t.Fatalf("GET %s: %d\n%s", target, w.Code, w.Body)
		}
		return w.Body.String()
	}
	m := regexp.MustCompile(`href="(/q/pay/` + oldID + `\?t=[^"]+)"`).FindStringSubmatch(get(s.InboxPath()))
	if m == nil {
		l.t.Fatal("the inbox has no link to " + oldID)
	}
	link := html.UnescapeString(m[1])
	page := get(link)
	c := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if c == nil || !strings.Contains(page, deploy) {
		l.t.Fatalf("the page of %s has no form of %q:\n%s", oldID, deploy, page)
	}
	return s, link, html.UnescapeString(c[1])
}

// post sends the form of the page: option 1.
func post(s *serve.Server, link, csrf string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, pageRequest(http.MethodPost, link, url.Values{"csrf": {csrf}, "action": {"answer"}, "choice": {"1"}, "by": {"ann"}}))
	return w
}

// TestFingerprintServeForm: a page loaded before the rebase, its form
// posted after: option 1 is Friday on a's question under its new id; the
// old link opens a's question, not b's. After a switch to a branch where
// a's question is not, the same form is 409, the page saying the question
// changed, and nothing is written.
func TestFingerprintServeForm(t *testing.T) {
	l := rebaseLab(t)
	l.raiseDeploy()
	s, link, csrf := l.openPage()
	l.pullRebase()
	l.checkPrinted()
	theirs := l.block("a", backups)

	// The old link opens the question it was made for.
	w := httptest.NewRecorder()
	s.ServeHTTP(w, pageRequest(http.MethodGet, link, nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), deploy) || strings.Contains(w.Body.String(), backups) {
		t.Errorf("GET the old link: %d, want 200 with a's question:\n%s", w.Code, w.Body)
	}
	if w := post(s, link, csrf); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), newID) {
		t.Errorf("POST after the rebase: %d, want 200 naming %s:\n%s", w.Code, newID, w.Body)
	}
	l.checkOutcome(theirs, "Friday")
}

func TestFingerprintServeBranchSwitch(t *testing.T) {
	l := rebaseLab(t)
	l.raiseDeploy()
	s, link, csrf := l.openPage()
	l.save("a", "deploy window")
	l.run("a", "git", "fetch", "-q")
	l.run("a", "git", "checkout", "-q", "-b", "theirs", "origin/main")
	theirs := l.block("a", backups)
	files := l.read("a/" + gitWS + mdstore.QuestionsFile)

	w := post(s, link, csrf)
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "The question changed") {
		t.Errorf("POST after a branch switch: %d, want 409 saying the question changed:\n%s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	s.ServeHTTP(w, pageRequest(http.MethodGet, link, nil))
	if w.Code != http.StatusConflict || strings.Contains(w.Body.String(), backups) {
		t.Errorf("GET after a branch switch: %d, want 409 without b's question:\n%s", w.Code, w.Body)
	}
	if got := l.block("a", backups); got != theirs || l.read("a/"+gitWS+mdstore.QuestionsFile) != files {
		t.Errorf("questions.md changed:\n%s", l.read("a/"+gitWS+mdstore.QuestionsFile))
	}
}

// raiseByMCP raises a's question through an MCP client of the latest
// protocol (its form comes back as the call's input request, and the
// client calls again with the request state): whatever during runs while
// the form is shown, then the person picks option 1.
func (l *gitLab) raiseByMCP(during func()) *sdk.CallToolResult {
	l.t.Helper()
	server := mcp.New(mcp.Options{
		Open: func() (*engine.Engine, error) { return l.engineOfClone("a"), nil },
		Describe: func(cmd string, err error) mcp.Failure {
			return mcp.Failure{Line: "devrites-engine: " + cmd + ": " + err.Error(), Kind: engine.KindOf(err), Code: 99}
		},
		Version: "test",
	})
	handler := func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		during()
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "1", "name": "ann"}}, nil
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "formclient", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: handler})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), st, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		l.t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Close() }()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "raise_question",
		Arguments: map[string]any{"gate": "blocking", "question": deploy, "options": []string{"Friday", "Monday"}}})
	if err != nil {
		l.t.Fatalf("raise_question: %v", err)
	}
	return res
}

// TestFingerprintMCPFormChanged: the form is answered after a switch to a
// branch where a's question is not: a tool error saying the question
// changed, and b's question, which holds the id there, stays open.
func TestFingerprintMCPFormChanged(t *testing.T) {
	l := rebaseLab(t)
	var theirs, files string
	res := l.raiseByMCP(func() {
		l.save("a", "deploy window")
		l.run("a", "git", "fetch", "-q")
		l.run("a", "git", "checkout", "-q", "-b", "theirs", "origin/main")
		theirs, files = l.block("a", backups), l.read("a/"+gitWS+mdstore.QuestionsFile)
	})
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !res.IsError || !strings.Contains(text.String(), "the question changed") {
		t.Errorf("raise_question: error %v, %q; want a tool error saying the question changed", res.IsError, text.String())
	}
	if got := l.block("a", backups); got != theirs || l.read("a/"+gitWS+mdstore.QuestionsFile) != files {
		t.Errorf("questions.md changed:\n%s", l.read("a/"+gitWS+mdstore.QuestionsFile))
	}
}

// TestFingerprintMCPForm: a's question raised through MCP; while its form
// is on the person's screen, git pull --rebase renumbers it; the form's
// option 1 is Friday on a's question under its new id.
func TestFingerprintMCPForm(t *testing.T) {
	l := rebaseLab(t)
	var theirs string
	res := l.raiseByMCP(func() {
		l.pullRebase() // while the form is shown
		l.checkPrinted()
		theirs = l.block("a", backups)
	})
	if res.IsError {
		t.Fatalf("raise_question: %+v", res)
	}
	var out struct {
		QID     string `json:"qid"`
		Outcome string `json:"outcome"`
		Asked   string `json:"asked"`
	}
	if b, err := json.Marshal(res.StructuredContent); err != nil || json.Unmarshal(b, &out) != nil {
		t.Fatalf("raise_question: %v", err)
	}
	if out.QID != newID || out.Outcome != question.StatusAnswered {
		t.Errorf("raise_question: %+v, want %s answered", out, newID)
	}
	l.checkOutcome(theirs, "Friday")
}
