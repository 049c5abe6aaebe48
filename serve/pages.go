package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// inboxCookie keeps the inbox token in the browser that opened the inbox,
// so that question pages can link back to it.
const inboxCookie = "devrites_inbox"

// csrfTTL is how long a question page's form may be sent.
const csrfTTL = 24 * time.Hour

// maxForm bounds the body of an answer.
const maxForm = 64 << 10

// maxName bounds answered_by, in characters.
const maxName = 100

// inboxAllowed reports whether the request carries the inbox token, in its
// query or its cookie.
func (s *Server) inboxAllowed(r *http.Request) bool {
	valid := func(t string) bool { return subtle.ConstantTimeCompare([]byte(t), []byte(s.inboxKey)) == 1 }
	if valid(r.URL.Query().Get("t")) {
		return true
	}
	c, err := r.Cookie(inboxCookie)
	return err == nil && valid(c.Value)
}

// inboxLink is the inbox's address for a request that may see it, else "".
func (s *Server) inboxLink(r *http.Request) string {
	if !s.inboxAllowed(r) {
		return ""
	}
	return s.InboxPath()
}

// entry is one open question of the inbox.
type entry struct {
	Project  string // shown when several projects are served
	Slug     string
	Q        question.Question
	Age      string
	Link     string
	Headline string // the question's first line
}

// unreadable is a workspace the inbox could not read, and why.
type unreadable struct {
	Project, Slug, Why string
}

type inboxPage struct {
	Entries    []entry
	Unreadable []unreadable
	Workspaces int
	Refresh    string // the inbox's own address
	Events     string
	Now        string
}

// inbox lists the open questions of every workspace: the awaited ones
// first, then the overdue ones, then the rest, oldest first in each group.
func (s *Server) inbox(w http.ResponseWriter, r *http.Request) {
	if !s.inboxAllowed(r) {
		s.fail(w, r, http.StatusForbidden, "This link does not open the inbox",
			"Open the inbox with the address devrites-engine serve printed when it started.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: inboxCookie, Value: s.inboxToken(), Path: "/", HttpOnly: true,
		Secure: s.cfg.TLS, SameSite: http.SameSiteStrictMode})
	now := s.cfg.Now()
	// The stamp is taken before the files are read: a change while they
	// are read is a change the page has not shown.
	lists, all := make([][]*mdstore.Workspace, len(s.projects)), []*mdstore.Workspace(nil)
	for i, p := range s.projects {
		lists[i] = p.workspaces()
		all = append(all, lists[i]...)
	}
	page := inboxPage{Refresh: s.InboxPath(), Events: s.inboxEventsURL(stamp(all)), Now: now.UTC().Format(time.RFC3339)}
	for i, p := range s.projects {
		name := ""
		if len(s.projects) > 1 {
			name = p.name
		}
		for _, ws := range lists[i] {
			page.Workspaces++
			eng, err := s.open(ws)
			var qs []question.Question
			if err == nil {
				err = eng.List(engine.ListFilter{Status: question.StatusOpen}, func(q question.Question) error {
					qs = append(qs, q)
					return nil
				})
			}
			if err != nil {
				page.Unreadable = append(page.Unreadable, unreadable{name, ws.Slug, s.relative(err.Error())})
				continue
			}
			for _, q := range qs {
				page.Entries = append(page.Entries, entry{Project: name, Slug: ws.Slug, Q: q, Age: q.Age(now),
					Link: caplink.Path(ws.Slug, q.QID, p.key.Token(p.dir, ws.Slug, q.QID, q.Fingerprint)), Headline: headline(q.Question)})
			}
		}
	}
	rank := func(e entry) int {
		switch {
		case e.Q.Awaited:
			return 0
		case e.Q.Overdue:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(page.Entries, func(a, b entry) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a.Q.RaisedAt, b.Q.RaisedAt)
	})
	s.render(w, r, http.StatusOK, "inbox.html", page)
}

// headline is the first line of a question's text.
func headline(q string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(q), "\n")
	return first
}

// open prepares the engine of a workspace. The engine reads its
// configuration (templates, AFK, notify, rules) afresh each time, as every
// command does.
func (s *Server) open(ws *mdstore.Workspace) (*engine.Engine, error) {
	return engine.Open(ws, s.cfg.Now, s.cfg.LockTimeout, "")
}

// target is the question a capability link names: by its fingerprint,
// under the qid it had when the link was made.
type target struct {
	p     *project
	ws    *mdstore.Workspace
	slug  string
	qid   string
	fp    string
	token string
}

// link is the capability link of the target.
func (t target) link() string { return caplink.Path(t.slug, t.qid, t.token) }

// authorize finds the project whose key made the request's token for the
// slug and qid of its path. Without one, it writes 403 and returns false:
// nothing about the question is told to a request without its token.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) (target, bool) {
	t := target{slug: r.PathValue("slug"), qid: r.PathValue("qid"), token: r.URL.Query().Get("t")}
	for _, p := range s.projects {
		if fp, ok := p.key.Opens(t.token, p.dir, t.slug, t.qid); ok {
			t.p, t.fp = p, fp
			break
		}
	}
	if t.p == nil {
		s.fail(w, r, http.StatusForbidden, "This link does not work",
			"The link is not complete, or it was made for another question or another server. Open it again from the message that brought it.")
		return t, false
	}
	if t.ws = t.p.workspace(t.slug); t.ws == nil {
		s.fail(w, r, http.StatusNotFound, "No such workspace", "The workspace "+t.slug+" is not there any more.")
		return t, false
	}
	return t, true
}

// current opens the engine of a target's workspace and reads its question:
// the one of the link's fingerprint, under whatever id it has now. None
// (a merge, a branch switch or an edit changed it) is 409, the page saying
// the question changed; one no longer open ends its link: 403, saying
// what became of it.
func (s *Server) current(w http.ResponseWriter, r *http.Request, t target) (*engine.Engine, question.Question, bool) {
	eng, err := s.open(t.ws)
	if err != nil {
		s.refuse(w, r, err)
		return nil, question.Question{}, false
	}
	q, err := eng.GetByFingerprint(t.qid, t.fp)
	if err != nil {
		s.refuse(w, r, err)
		return nil, q, false
	}
	if q.Status != question.StatusOpen {
		s.fail(w, r, http.StatusForbidden, "This question is closed",
			t.qid+" is "+q.Status+": its link works only while it is open.")
		return nil, q, false
	}
	return eng, q, true
}

// option is one choice of the form.
type option struct {
	N      int
	Value  string
	Text   string
	Escape bool // the escape hatch: the words are the answer
}

// form is what a person filled in, kept when the page is shown again.
type form struct {
	Choice, Words, By string
}

type questionPage struct {
	Slug, QID string
	Project   string
	Q         question.Question
	Text      string // the option set as questions show prints it
	Options   []option
	Action    string
	CSRF      string
	Events    string
	Inbox     string
	Form      form
	Error     string
	Hints     []string
}

// question is the page of one question: the option set as questions show
// prints it, and the form that answers it.
func (s *Server) question(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authorize(w, r)
	if !ok {
		return
	}
	since := stamp([]*mdstore.Workspace{t.ws})
	eng, q, ok := s.current(w, r, t)
	if !ok {
		return
	}
	s.render(w, r, http.StatusOK, "question.html", s.questionPage(r, t, eng, q, form{}, since))
}

// questionPage is the page of q, read when the workspace's files had the
// stamp since.
func (s *Server) questionPage(r *http.Request, t target, eng *engine.Engine, q question.Question, f form, since string) questionPage {
	page := questionPage{Slug: t.slug, QID: q.QID, Q: q, Text: eng.ShowText(q), Options: options(q),
		Action: t.link(), CSRF: s.csrf(t, s.cfg.Now()), Events: questionEventsURL(t, since), Inbox: s.inboxLink(r), Form: f}
	if len(s.projects) > 1 {
		page.Project = t.p.name
	}
	return page
}

// options are the choices of the form: the question's options, and, when
// none of them is the escape hatch, one more whose answer is the words.
func options(q question.Question) []option {
	var out []option
	escape := false
	for i, o := range q.Options {
		e := i == len(q.Options)-1 && question.IsEscapeHatch(o)
		escape = escape || e
		out = append(out, option{N: i + 1, Value: strconv.Itoa(i + 1), Text: o, Escape: e})
	}
	if !escape {
		out = append(out, option{Value: "words", Text: "Something else: the words below", Escape: true})
	}
	return out
}

// csrf is the form token of a question page issued at a time: the time and
// a MAC over it, the project, the slug, the qid and the fingerprint of
// the link.
func (s *Server) csrf(t target, at time.Time) string {
	issued := strconv.FormatInt(at.Unix(), 10)
	return issued + "." + t.p.key.MAC("csrf", t.p.dir, t.slug, t.qid, t.fp, issued)
}

// csrfValid: made for this question, and issued less than csrfTTL ago.
func (s *Server) csrfValid(t target, token string) bool {
	issued, mac, ok := strings.Cut(token, ".")
	n, err := strconv.ParseInt(issued, 10, 64)
	if !ok || err != nil || !t.p.key.Valid(mac, "csrf", t.p.dir, t.slug, t.qid, t.fp, issued) {
		return false
	}
	age := s.cfg.Now().Sub(time.Unix(n, 0))
	return age > -5*time.Minute && age < csrfTTL
}

// resultPage is what a recorded answer shows.
type resultPage struct {
	Slug     string
	Resolved engine.Resolved
	Warnings []string
	Inbox    string
}

// answer records a person's answer through engine.Resolve, the transaction
// of state resolve: same lock, same validation, same notify hook. It needs
// the capability token of the link and the CSRF token of the page. The form
// was read whole before its turn (readForm).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authorize(w, r)
	if !ok {
		return
	}
	if !s.csrfValid(t, r.PostForm.Get("csrf")) {
		s.fail(w, r, http.StatusForbidden, "Not recorded",
			"This form is not from the question's page, or it is older than a day. Open the link again and answer there.")
		return
	}
	since := stamp([]*mdstore.Workspace{t.ws})
	eng, q, ok := s.current(w, r, t)
	if !ok {
		return
	}
	f := form{Choice: r.PostForm.Get("choice"), Words: r.PostForm.Get("words"), By: strings.TrimSpace(r.PostForm.Get("by"))}
	res, status, msg := resolution(q, r.PostForm.Get("action"), f)
	if status == 0 {
		status, msg = checkName(f.By)
	}
	if status != 0 {
		page := s.questionPage(r, t, eng, q, f, since)
		page.Error = msg
		s.render(w, r, status, "question.html", page)
		return
	}
	// The write completes even when the person's connection drops.
	ctx := context.WithoutCancel(r.Context())
	res.Via = "serve"
	res.Fingerprint = t.fp // the question of the link, whatever id it has when the lock is taken
	out, notify, err := eng.ResolveThenNotify(ctx, []engine.Resolution{res}, f.By)
	if errors.Is(err, engine.ErrChanged) {
		s.changed(w, r) // changed between the read and the lock
		return
	}
	if err != nil {
		status := statusOf(err)
		if status >= 500 || status == http.StatusNotFound {
			if status == http.StatusServiceUnavailable {
				w.Header().Set("Retry-After", "5")
			}
			s.fail(w, r, status, "Not recorded", "not recorded: "+err.Error(), mdstore.Hints(err)...)
			return
		}
		page := s.questionPage(r, t, eng, q, f, since)
		page.Error, page.Hints = s.relative("not recorded: "+err.Error()), s.relativeAll(mdstore.Hints(err))
		s.render(w, r, status, "question.html", page)
		return
	}
	d := out.Resolved[0]
	if d.Response != nil && d.Status == question.StatusOpen {
		s.logf("%s/%s response %s by %s; still open", t.slug, d.QID, d.Response.Status, f.By)
	} else {
		s.logf("%s/%s %s by %s", t.slug, d.QID, d.Status, f.By)
	}
	page := &resultPage{Slug: t.slug, Resolved: d, Inbox: s.inboxLink(r)}
	// The hook runs once the request slot is let go: a slow hook holds up
	// nobody else; its warnings are on the page.
	afterTurn(w, func() { page.Warnings = s.relativeAll(append(out.Warnings, notify(ctx)...)) })
	s.render(w, r, http.StatusOK, "result.html", page)
}

// resolution turns the form into what state resolve would be given. An
// option picked without words is its number; the escape hatch takes the
// words; words alone are the answer. Blank text is passed on as it is, for
// the engine to refuse: absence of an answer is never approval. It returns
// a status other than 0, and the decisive line, when the form itself is
// wrong.
func resolution(q question.Question, action string, f form) (engine.Resolution, int, string) {
	r := engine.Resolution{QID: q.QID, Kind: question.StatusAnswered, Text: f.Words}
	switch action {
	case "reject":
		r.Kind = question.StatusRejected
		return r, 0, ""
	case "drop":
		r.Kind = question.StatusDropped
		return r, 0, ""
	case "answer":
	default:
		return r, http.StatusBadRequest, "not recorded: the form has no action (answer, reject or drop)"
	}
	if f.Choice == "" || f.Choice == "words" {
		return r, 0, ""
	}
	for _, o := range options(q) {
		if o.Value != f.Choice {
			continue
		}
		words := strings.TrimSpace(f.Words) != ""
		switch {
		case o.Escape && words:
		case words:
			return r, http.StatusUnprocessableEntity, "not recorded: option " + o.Value + " is picked and words are written; " +
				"clear the words to answer with the option, or pick the last choice to answer with the words"
		default:
			r.Text = o.Value
		}
		return r, 0, ""
	}
	return r, http.StatusBadRequest, "not recorded: there is no option " + strconv.Quote(f.Choice)
}

// checkName refuses an answered_by no person could be: empty, too long, or
// with line breaks or control characters.
func checkName(by string) (int, string) {
	switch {
	case by == "":
		return http.StatusUnprocessableEntity, "not recorded: give your name; it is recorded as answered_by"
	case !utf8.ValidString(by) || utf8.RuneCountInString(by) > maxName:
		return http.StatusUnprocessableEntity, "not recorded: a name is at most " + strconv.Itoa(maxName) + " characters of text"
	case strings.IndexFunc(by, unicode.IsControl) >= 0:
		return http.StatusUnprocessableEntity, "not recorded: a name is one line"
	}
	return 0, ""
}

// statusOf maps an error of the engine to an HTTP status, as the command
// line maps it to an exit code (the first match wins):
//
//	busy (exit 8)                                  503, with Retry-After
//	bad arguments (exit 7)                         422, the form shown again
//	malformed, schema, ambiguous qid (exit 6)      409: the workspace needs doctor
//	conflict, not open, paused, stopped (exit 5)   409
//	the question changed (exit 5)                  409 (a page of its own: changed)
//	unknown qid, no workspace, missing (4, 2)      404
//	anything else (exit 1)                         500
func statusOf(err error) int {
	switch engine.KindOf(err) {
	case "busy":
		return http.StatusServiceUnavailable
	case "bad-arguments":
		return http.StatusUnprocessableEntity
	case "schema", "ambiguous-qid", "malformed", "conflict", "paused", "stopped", "not-open", "exists", "question-changed":
		return http.StatusConflict
	case "unknown-qid", "unknown-fingerprint", "unknown-rule", "no-workspace", "missing-file":
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

// refuse writes the page of an engine error while reading.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, engine.ErrChanged) {
		s.changed(w, r)
		return
	}
	status := statusOf(err)
	if status == http.StatusUnprocessableEntity {
		status = http.StatusNotFound // a qid in the path that is no id: no such question
	}
	s.fail(w, r, status, http.StatusText(status), err.Error(), mdstore.Hints(err)...)
}

// changed is the page of a link or form whose question no question of
// the workspace is now: nothing was recorded, on it or on another.
func (s *Server) changed(w http.ResponseWriter, r *http.Request) {
	s.fail(w, r, http.StatusConflict, "The question changed",
		"The question this link was made for is not in the workspace any more as it was asked: a merge, a branch switch or an edit changed it. Nothing was recorded. Open the question again from the inbox or a newer message.")
}
