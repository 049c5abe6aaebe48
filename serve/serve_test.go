package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

const q1 = "q-2026-11-29-001"

// The inbox lists the open questions of every workspace, the awaited one
// first, overdue ones marked, with gate, SLA and age; final questions are
// not listed.
func TestInbox(t *testing.T) {
	dir := newProject(t, "pay", "auth")
	later := raisedAt.Add(10 * time.Minute)
	// A provisional question (open, not awaited, SLA 4h), one that is
	// answered, and in another workspace the awaited one, raised last.
	provisional(t, dir, "pay", "Log the rounding?")
	answered := "Yes"
	if _, err := eng(t, dir, "pay", raisedAt).Raise(context.Background(),
		engine.RaiseRequest{Gate: "advisory", Question: "Answered already?", Options: []string{"Yes"}, Answered: &answered}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := eng(t, dir, "auth", later).Raise(context.Background(), rounding, ""); err != nil {
		t.Fatal(err)
	}
	f := serveFixture(t, dir, Config{})
	w := f.get(f.s.InboxPath())
	if w.Code != http.StatusOK {
		t.Fatalf("got %d, want 200:\n%s", w.Code, w.Body)
	}
	body := w.Body.String()
	order := regexp.MustCompile(`href="/q/([a-z]+)/(q-[0-9-]+)\?t=`).FindAllStringSubmatch(body, -1)
	var got []string
	for _, m := range order {
		got = append(got, m[1]+"/"+m[2])
	}
	qAuth := "q-2026-11-29-003" // ids are unique across the project: pay holds 001 and 002
	want := []string{"auth/" + qAuth, "pay/" + q1}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got questions %v, want %v (the awaited one first, the answered one left out)", got, want)
	}
	for _, s := range []string{"badge-awaited\">awaited", "badge-overdue\">overdue", "pay · validating · SLA 4h · age 27m", "auth · blocking · SLA 15m · age 17m",
		"Open questions <span class=\"count\">(2)</span>", "2 workspaces"} {
		if !strings.Contains(body, s) {
			t.Errorf("the inbox lacks %q", s)
		}
	}
	// The awaited question is marked awaited and overdue (raised 17m ago,
	// SLA 15m); the provisional one is neither.
	if strings.Count(body, "badge-awaited\">") != 1 || strings.Count(body, "badge-overdue\">") != 1 || strings.Count(body, "badge-provisional\">") != 1 {
		t.Errorf("got the badges wrong:\n%s", body)
	}
	// Each link is the question's capability link.
	p := f.s.projects[0]
	if !strings.Contains(body, `href="`+html.EscapeString(caplink.Path("auth", qAuth, p.key.Token(dir, "auth", qAuth, f.fingerprint("auth", qAuth))))+`"`) {
		t.Errorf("the inbox does not link auth/%s with its token", qAuth)
	}
}

// The inbox needs its token, in the link or in the cookie the link set.
func TestInboxNeedsItsToken(t *testing.T) {
	f := newFixture(t)
	for name, target := range map[string]string{"no token": "/", "wrong token": "/?t=abc",
		"a question's token": "/?t=" + f.s.projects[0].key.Token(f.dir, "pay", q1, f.fingerprint("pay", q1))} {
		if w := f.get(target); w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), q1) {
			t.Errorf("%s: got %d, want 403 and no question named", name, w.Code)
		}
	}
	w := f.get(f.s.InboxPath())
	var cookie *http.Cookie
	for _, c := range w.Result().Cookies() {
		if c.Name == inboxCookie {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("got cookie %+v, want an HttpOnly, SameSite=Strict inbox cookie", cookie)
	}
	r := request(http.MethodGet, "/", nil)
	r.AddCookie(cookie)
	if w := f.serve(r); w.Code != http.StatusOK {
		t.Errorf("with the cookie: got %d, want 200", w.Code)
	}
	// A question page links back to the inbox only for whoever may see it.
	if strings.Contains(f.get(f.link("pay", q1)).Body.String(), "All open questions") {
		t.Errorf("a question page opened by its link alone links to the inbox")
	}
	r = request(http.MethodGet, f.link("pay", q1), nil)
	r.AddCookie(cookie)
	if !strings.Contains(f.serve(r).Body.String(), "All open questions") {
		t.Errorf("a question page opened with the inbox cookie does not link to the inbox")
	}
}

// A question's page shows the option set exactly as questions show prints
// it, attempt and previous feedback included.
func TestQuestionPageShowsTheOptionSet(t *testing.T) {
	dir := newProject(t, "pay")
	raise(t, dir, "pay", rounding)
	e := eng(t, dir, "pay", raisedAt)
	if _, err := e.Resolve(context.Background(), []engine.Resolution{{QID: q1, Kind: question.StatusRejected,
		Text: "partial refunds are a separate feature\nand so is rounding of fees"}}, "ann"); err != nil {
		t.Fatal(err)
	}
	id := raise(t, dir, "pay", rounding)
	f := serveFixture(t, dir, Config{})
	w := f.get(f.link("pay", id))
	if w.Code != http.StatusOK {
		t.Fatalf("got %d:\n%s", w.Code, w.Body)
	}
	m := regexp.MustCompile(`(?s)<pre class="show">(.*?)</pre>`).FindStringSubmatch(w.Body.String())
	if m == nil {
		t.Fatalf("no option set on the page:\n%s", w.Body)
	}
	q, err := eng(t, dir, "pay", servedAt).Get(id)
	if err != nil {
		t.Fatal(err)
	}
	want := eng(t, dir, "pay", servedAt).ShowText(q)
	if got := html.UnescapeString(m[1]); got != want {
		t.Errorf("got\n%s\nwant (questions show)\n%s", got, want)
	}
	for _, s := range []string{"attempt 2, superseding " + q1, "partial refunds are a separate feature", "and so is rounding of fees", "overdue"} {
		if !strings.Contains(want, s) {
			t.Errorf("questions show lacks %q", s)
		}
	}
	// Every control has a label.
	body := w.Body.String()
	for _, id := range regexp.MustCompile(`<(?:input|textarea)[^>]* id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		if !strings.Contains(body, `<label for="`+id[1]+`"`) {
			t.Errorf("control %s has no label", id[1])
		}
	}
}

// Every field is HTML-escaped: a script in a question, an option, a slice,
// previous feedback or a name sent back renders as text.
func TestFieldsAreEscaped(t *testing.T) {
	const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>`
	dir := newProject(t, "pay")
	id := raise(t, dir, "pay", engine.RaiseRequest{Slice: "3 " + evil, Gate: "blocking", Question: "Pick? " + evil,
		Options: []string{"A " + evil, "B"}, Tags: []string{"t" + evil}})
	f := serveFixture(t, dir, Config{})
	csrf := f.csrf("pay", id)
	for name, w := range map[string]interface {
		Result() *http.Response
	}{
		"inbox":    f.get(f.s.InboxPath()),
		"question": f.get(f.link("pay", id)),
		"refused":  f.post(f.link("pay", id), answerForm(csrf, "answer", "2", "words "+evil, "Eve "+evil)),
	} {
		resp := w.Result()
		b := new(strings.Builder)
		_, _ = bufio.NewReader(resp.Body).WriteTo(b)
		body := b.String()
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
			t.Errorf("%s: the script is markup:\n%s", name, body)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;") {
			t.Errorf("%s: the script is not shown as text:\n%s", name, body)
		}
		if strings.Count(body, "<script") != 1 || !strings.Contains(body, `<script src="/static/app.js" defer></script>`) {
			t.Errorf("%s: want one script element, the page's own", name)
		}
	}
}

// Picking option 2 answers the question through the engine: choice 2, the
// option's title, answered_by, and state.md running.
func TestAnswerOption(t *testing.T) {
	f := newFixture(t)
	w := f.post(f.link("pay", q1), answerForm(f.csrf("pay", q1), "answer", "2", "", "Ann Example"))
	if w.Code != http.StatusOK {
		t.Fatalf("got %d, want 200:\n%s", w.Code, w.Body)
	}
	if !strings.Contains(w.Body.String(), q1+"</span> answered (option 2): Round half up") || !strings.Contains(w.Body.String(), "state: running; next: <code>/rite-spec</code>") {
		t.Errorf("the page does not say what was recorded:\n%s", w.Body)
	}
	for k, want := range map[string]string{"status": "answered", "choice": "2", "answer": "Round half up", "answered_by": "Ann Example", "answered_via": "serve", "answered_at": "2026-11-29T14:30:00Z"} {
		if got := field(t, f.dir, "pay", q1, k); got != want {
			t.Errorf("%s: got %q, want %q", k, got, want)
		}
	}
	if got := cursor(t, f.dir, "pay", "status"); got != "running" {
		t.Errorf("state.md status: got %q, want running", got)
	}
	b, _ := os.ReadFile(filepath.Join(f.dir, ".devrites", "work", "pay", "decisions.md"))
	if !strings.Contains(string(b), q1+" answered") {
		t.Errorf("no decision recorded:\n%s", b)
	}
}

// Words, the escape hatch, a reject and a drop, each as state resolve
// records them.
func TestAnswerForms(t *testing.T) {
	for _, tc := range []struct {
		name, action, choice, words string
		status, answer, choice2     string
		next                        string
	}{
		{"words alone", "answer", "", "Round to even, but log it", "answered", "Round to even, but log it", "", "/rite-spec"},
		{"escape hatch with words", "answer", "3", "Ask finance", "answered", "Ask finance", "", "/rite-spec"},
		{"words of a number pick the option", "answer", "", "1", "answered", "Banker's rounding", "1", "/rite-spec"},
		{"reject", "reject", "2", "refunds are a separate feature", "rejected", "refunds are a separate feature", "", "/rite-plan reslice --feedback " + q1},
		{"drop", "drop", "", "not needed", "dropped", "not needed", "", "/rite-spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			w := f.post(f.link("pay", q1), answerForm(f.csrf("pay", q1), tc.action, tc.choice, tc.words, "ann"))
			if w.Code != http.StatusOK {
				t.Fatalf("got %d, want 200:\n%s", w.Code, w.Body)
			}
			if got := field(t, f.dir, "pay", q1, "status"); got != tc.status {
				t.Errorf("status: got %q, want %q", got, tc.status)
			}
			if got := field(t, f.dir, "pay", q1, "answer"); got != tc.answer {
				t.Errorf("answer: got %q, want %q", got, tc.answer)
			}
			if got := field(t, f.dir, "pay", q1, "choice"); got != tc.choice2 {
				t.Errorf("choice: got %q, want %q", got, tc.choice2)
			}
			if got := cursor(t, f.dir, "pay", "next_action"); got != tc.next {
				t.Errorf("next_action: got %q, want %q", got, tc.next)
			}
		})
	}
}

// Refusals change nothing and show the decisive line: blank is never
// approval; a number out of range, the escape hatch without words, a
// picked option with words, no name, a form without action.
func TestAnswerRefused(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		action, choice, words, by string
		status                    int
		line                      string
	}{
		{"blank answer", "answer", "", "", "ann", 422, "not recorded: " + q1 + ": empty answer"},
		{"white space and a zero-width space", "answer", "", " \u200b\n\t", "ann", 422, "not recorded: " + q1 + ": empty answer"},
		{"blank reject", "reject", "", "  ", "ann", 422, "not recorded: " + q1 + ": empty reject feedback"},
		{"blank drop", "drop", "1", "", "ann", 422, "not recorded: " + q1 + ": empty drop reason"},
		{"escape hatch without words", "answer", "3", "", "ann", 422, "not recorded: " + q1 + ": option 3 is &#34;Something else — I&#39;ll describe it&#34;"},
		{"a number out of range", "answer", "", "7", "ann", 422, "not recorded: " + q1 + ": option 7 does not exist: the question has 3 options"},
		{"an option and words", "answer", "2", "but log it", "ann", 422, "not recorded: option 2 is picked and words are written"},
		{"no option of that number", "answer", "9", "", "ann", 400, "not recorded: there is no option &#34;9&#34;"},
		{"no name", "answer", "2", "", " ", 422, "not recorded: give your name"},
		{"a name of two lines", "answer", "2", "", "ann\nadmin", 422, "not recorded: a name is one line"},
		{"no action", "", "2", "", "ann", 400, "not recorded: the form has no action"},
		{"invalid UTF-8", "answer", "", "caf\xe9", "ann", 422, "not recorded: " + q1 + ": answer is not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			csrf := f.csrf("pay", q1)
			before := snapshot(t, f.dir)
			w := f.post(f.link("pay", q1), answerForm(csrf, tc.action, tc.choice, tc.words, tc.by))
			if w.Code != tc.status {
				t.Errorf("got %d, want %d", w.Code, tc.status)
			}
			if !strings.Contains(w.Body.String(), tc.line) {
				t.Errorf("the page lacks the decisive line %q:\n%s", tc.line, w.Body)
			}
			if tc.status == 422 && !strings.Contains(w.Body.String(), `role="alert"`) {
				t.Errorf("the refusal is not an alert on the form's page")
			}
			unchanged(t, f.dir, before)
		})
	}
}

// What the person wrote is kept when the form is shown again.
func TestRefusedFormKeepsInput(t *testing.T) {
	f := newFixture(t)
	w := f.post(f.link("pay", q1), answerForm(f.csrf("pay", q1), "answer", "2", "keep these words", "Ann"))
	body := w.Body.String()
	for _, s := range []string{`id="choice-2" value="2" checked`, ">keep these words</textarea>", `value="Ann"`} {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
}

// An answer needs the capability token of the link and the CSRF token of
// the page; wrong, missing, swapped or expired tokens are 403 and change
// nothing.
func TestAnswerNeedsBothTokens(t *testing.T) {
	dir := newProject(t, "pay")
	raise(t, dir, "pay", rounding)
	two := provisional(t, dir, "pay", "Other?")
	clock := servedAt
	f := serveFixture(t, dir, Config{Now: func() time.Time { return clock }})
	csrf := f.csrf("pay", q1)
	other := f.csrf("pay", two)
	p := f.s.projects[0]
	before := snapshot(t, f.dir)
	for _, tc := range []struct {
		name, target, csrf string
		later              time.Duration
	}{
		{"no CSRF token", f.link("pay", q1), "", 0},
		{"a forged CSRF token", f.link("pay", q1), "1796000084.abc", 0},
		{"another question's CSRF token", f.link("pay", q1), other, 0},
		{"a CSRF token a day old", f.link("pay", q1), csrf, 24*time.Hour + time.Second},
		{"no capability token", "/q/pay/" + q1, csrf, 0},
		{"a wrong capability token", "/q/pay/" + q1 + "?t=" + strings.Repeat("A", 43), csrf, 0},
		{"another question's capability token", "/q/pay/" + q1 + "?t=" + p.key.Token(dir, "pay", two, f.fingerprint("pay", two)), csrf, 0},
		{"another workspace's capability token", "/q/pay/" + q1 + "?t=" + p.key.Token(dir, "auth", q1, f.fingerprint("pay", q1)), csrf, 0},
		{"the inbox token", "/q/pay/" + q1 + "?t=" + f.s.inboxToken(), csrf, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock = servedAt.Add(tc.later)
			defer func() { clock = servedAt }()
			w := f.post(tc.target, answerForm(tc.csrf, "answer", "2", "", "mallory"))
			if w.Code != http.StatusForbidden {
				t.Errorf("got %d, want 403:\n%s", w.Code, w.Body)
			}
			if strings.Contains(w.Body.String(), "Round half up") {
				t.Errorf("a refused request was shown the question")
			}
			unchanged(t, f.dir, before)
		})
	}
	// A GET with a wrong token tells nothing either.
	for _, target := range []string{"/q/pay/" + q1, "/q/pay/" + q1 + "?t=x", "/q/nope/" + q1 + "?t=x", "/q/pay/q-2031-01-01-001?t=x"} {
		if w := f.get(target); w.Code != http.StatusForbidden || strings.Contains(w.Body.String(), "rounding") {
			t.Errorf("GET %s: got %d, want 403 and nothing about the question", target, w.Code)
		}
	}
}

// A link stops working once the question is final: its page and its form
// are 403, and a second answer changes nothing.
func TestLinkEndsWhenFinal(t *testing.T) {
	f := newFixture(t)
	csrf := f.csrf("pay", q1)
	if w := f.post(f.link("pay", q1), answerForm(csrf, "answer", "1", "", "ann")); w.Code != http.StatusOK {
		t.Fatalf("got %d, want 200", w.Code)
	}
	before := snapshot(t, f.dir)
	for _, w := range []interface{ Result() *http.Response }{
		f.get(f.link("pay", q1)),
		f.post(f.link("pay", q1), answerForm(csrf, "answer", "2", "", "bob")),
		f.get("/q/pay/" + q1 + "/events?t=" + f.s.projects[0].key.Token(f.dir, "pay", q1, f.fingerprint("pay", q1))),
	} {
		resp := w.Result()
		b := new(strings.Builder)
		_, _ = bufio.NewReader(resp.Body).WriteTo(b)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(b.String(), q1+" is answered: its link works only while it is open") {
			t.Errorf("got %d, want 403 saying the question is answered:\n%s", resp.StatusCode, b)
		}
	}
	unchanged(t, f.dir, before)
}

// The engine's refusals keep their kind: a workspace the engine will not
// write is 409 with the decisive line, a held lock is 503.
func TestEngineRefusals(t *testing.T) {
	t.Run("malformed", func(t *testing.T) {
		f := newFixture(t)
		csrf := f.csrf("pay", q1)
		p := filepath.Join(f.dir, ".devrites", "work", "pay", mdstore.QuestionsFile)
		b, _ := os.ReadFile(p)
		if err := os.WriteFile(p, append(b, "\n## q-2026-11-29-009\nquestion: a block without status\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, f.dir)
		w := f.post(f.link("pay", q1), answerForm(csrf, "answer", "2", "", "ann"))
		if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "not recorded: ") || !strings.Contains(w.Body.String(), "q-2026-11-29-009") {
			t.Errorf("got %d, want 409 naming the broken block:\n%s", w.Code, w.Body)
		}
		unchanged(t, f.dir, before)
	})
	t.Run("busy", func(t *testing.T) {
		f := newFixture(t)
		csrf := f.csrf("pay", q1)
		lock := flock.New(filepath.Join(f.dir, ".devrites", "work", "pay", mdstore.LockFile))
		if err := lock.Lock(); err != nil {
			t.Fatal(err)
		}
		defer lock.Unlock()
		before := snapshot(t, f.dir)
		w := f.post(f.link("pay", q1), answerForm(csrf, "answer", "2", "", "ann"))
		if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" {
			t.Errorf("got %d (Retry-After %q), want 503 with Retry-After", w.Code, w.Header().Get("Retry-After"))
		}
		unchanged(t, f.dir, before)
	})
}

// statusOf maps each kind of engine error as the package documents it.
func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		kind error
		want int
	}{
		{mdstore.ErrBusy, 503},
		{engine.ErrBadArgs, 422},
		{mdstore.ErrBadSlug, 422},
		{engine.ErrSchema, 409},
		{engine.ErrAmbiguous, 409},
		{mdstore.ErrMalformed, 409},
		{engine.ErrConflict, 409},
		{engine.ErrNotOpen, 409},
		{engine.ErrPaused, 409},
		{engine.ErrStopped, 409},
		{engine.ErrUnknownQID, 404},
		{mdstore.ErrNoWorkspace, 404},
		{mdstore.ErrMissing, 404},
		{errors.New("disk on fire"), 500},
	} {
		err := fmt.Errorf("q: %w", mdstore.Errorf(tc.kind, "what failed"))
		if got := statusOf(err); got != tc.want {
			t.Errorf("%v: got %d, want %d", tc.kind, got, tc.want)
		}
	}
}

// Every response carries the security headers.
func TestHeaders(t *testing.T) {
	f := newFixture(t)
	for _, target := range []string{f.s.InboxPath(), "/", f.link("pay", q1), "/q/pay/" + q1 + "?t=x", "/nowhere", "/static/app.css", "/static/app.js"} {
		h := f.get(target).Header()
		for k, want := range map[string]string{
			"Content-Security-Policy": contentSecurity,
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
			"X-Content-Type-Options":  "nosniff",
			"Cache-Control":           "no-store",
		} {
			if got := h.Get(k); got != want {
				t.Errorf("%s: %s: got %q, want %q", target, k, got, want)
			}
		}
	}
	for _, s := range []string{"frame-ancestors 'none'", "script-src 'self';"} {
		if !strings.Contains(contentSecurity, s) || strings.Contains(contentSecurity, "unsafe-inline") {
			t.Errorf("the policy lacks %q or allows inline script", s)
		}
	}
	if w := f.get("/static/"); w.Code != http.StatusNotFound {
		t.Errorf("/static/: got %d, want 404 (no listing)", w.Code)
	}
	if w := f.get("/static/app.js"); !strings.HasPrefix(w.Header().Get("Content-Type"), "text/javascript") {
		t.Errorf("app.js is served as %q", w.Header().Get("Content-Type"))
	}
}

// A form sent from another site is refused before anything is read.
func TestCrossOriginRefused(t *testing.T) {
	f := newFixture(t)
	csrf := f.csrf("pay", q1)
	before := snapshot(t, f.dir)
	for name, set := range map[string]func(*http.Request){
		"Sec-Fetch-Site": func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"Origin":         func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") },
	} {
		r := request(http.MethodPost, f.link("pay", q1), answerForm(csrf, "answer", "2", "", "ann"))
		set(r)
		if w := f.serve(r); w.Code != http.StatusForbidden {
			t.Errorf("%s: got %d, want 403", name, w.Code)
		}
	}
	unchanged(t, f.dir, before)
}

// While only loopback is served, a request naming another host (DNS
// rebinding) is refused; with AllowRemote it is served.
func TestLoopbackHost(t *testing.T) {
	f := newFixture(t)
	for host, want := range map[string]int{"127.0.0.1:7878": 200, "localhost:7878": 200, "[::1]:7878": 200, "evil.example:7878": 421, "10.0.0.2": 421} {
		r := request(http.MethodGet, f.s.InboxPath(), nil)
		r.Host = host
		if w := f.serve(r); w.Code != want {
			t.Errorf("Host %s: got %d, want %d", host, w.Code, want)
		}
	}
	remote := serveFixture(t, f.dir, Config{AllowRemote: true})
	r := request(http.MethodGet, remote.s.InboxPath(), nil)
	r.Host = "laptop.example.ts.net:7878"
	if w := remote.serve(r); w.Code != http.StatusOK {
		t.Errorf("with AllowRemote: got %d, want 200", w.Code)
	}
}

// Each client address has a small bucket: past it, 429 with Retry-After;
// another address is not held back; tokens come back with time.
func TestRateLimit(t *testing.T) {
	f := serveFixture(t, newProject(t, "pay"), Config{Rate: 1, Burst: 5})
	clock := time.Unix(1e9, 0)
	f.s.limit.now = func() time.Time { return clock }
	from := func(addr string) int {
		r := request(http.MethodGet, "/static/app.css", nil)
		r.RemoteAddr = addr
		return f.serve(r).Code
	}
	for i := 0; i < 5; i++ {
		if got := from("192.0.2.1:1000"); got != 200 {
			t.Fatalf("request %d: got %d, want 200", i+1, got)
		}
	}
	r := request(http.MethodGet, "/static/app.css", nil)
	r.RemoteAddr = "192.0.2.1:1001"
	w := f.serve(r)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
		t.Errorf("request 6: got %d (Retry-After %q), want 429 with Retry-After 1", w.Code, w.Header().Get("Retry-After"))
	}
	if got := from("192.0.2.2:1000"); got != 200 {
		t.Errorf("another address: got %d, want 200", got)
	}
	clock = clock.Add(2 * time.Second)
	if got := from("192.0.2.1:1000"); got != 200 {
		t.Errorf("two seconds later: got %d, want 200", got)
	}
}

// The buckets kept stay bounded.
func TestRateLimitForgets(t *testing.T) {
	l := newLimiter(1, 2)
	clock := time.Unix(1e9, 0)
	l.now = func() time.Time { return clock }
	for i := 0; i < maxClients+10; i++ {
		l.allow(fmt.Sprint(i))
		clock = clock.Add(time.Millisecond)
	}
	if len(l.clients) > maxClients {
		t.Errorf("got %d buckets, want at most %d", len(l.clients), maxClients)
	}
}

// The link the engine gives the notify hook (serve_url) opens the
// question's page.
func TestEngineLinkOpensThePage(t *testing.T) {
	dir := newProject(t, "pay")
	hook := "printf %s \"$DEVRITES_ANSWER_URL\" > " + filepath.Join(dir, "url.txt")
	if err := os.WriteFile(filepath.Join(dir, ".devrites", "notify.yaml"),
		[]byte("notify: '"+hook+"'\nserve_url: http://127.0.0.1:7878\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, filepath.Join(dir, ".devrites", "notify.yaml"))
	raise(t, dir, "pay", rounding)
	b, err := os.ReadFile(filepath.Join(dir, "url.txt"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(string(b))
	if err != nil || u.Host != "127.0.0.1:7878" {
		t.Fatalf("got link %q", b)
	}
	f := serveFixture(t, dir, Config{})
	if w := f.get(u.RequestURI()); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Which currency rounding rule?") {
		t.Errorf("GET %s: got %d, want the question's page", u.RequestURI(), w.Code)
	}
}

// Several projects, a workspace under the older features/ name, and the
// same slug in two projects: each link opens its own question.
func TestProjects(t *testing.T) {
	a, b := newProject(t, "pay"), newProject(t)
	if err := os.MkdirAll(filepath.Join(b, ".devrites", "features"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := mdstore.Init(mdstore.Locator{Root: b}, "pay", raisedAt); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(b, ".devrites", "work", "pay"), filepath.Join(b, ".devrites", "features", "pay")); err != nil {
		t.Fatal(err)
	}
	raise(t, a, "pay", rounding)
	other := rounding
	other.Question = "The other project's question?"
	if _, err := eng(t, b, "pay", raisedAt).Raise(context.Background(), other, ""); err != nil {
		t.Fatal(err)
	}
	f := serveFixture(t, a, Config{Roots: []string{a, filepath.Join(b, ".devrites"), a}})
	if len(f.s.projects) != 2 {
		t.Fatalf("got %d projects, want 2 (a root given twice is served once)", len(f.s.projects))
	}
	inbox := f.get(f.s.InboxPath()).Body.String()
	links := regexp.MustCompile(`href="(/q/[^"]+)"`).FindAllStringSubmatch(inbox, -1)
	if len(links) != 2 {
		t.Fatalf("got %d questions in the inbox, want 2:\n%s", len(links), inbox)
	}
	seen := map[string]bool{}
	for _, l := range links {
		body := f.get(html.UnescapeString(l[1])).Body.String()
		for _, q := range []string{"Which currency rounding rule?", "The other project&#39;s question?"} {
			if strings.Contains(body, q) {
				seen[q] = true
			}
		}
	}
	if len(seen) != 2 {
		t.Errorf("the two links opened %v, want each project's question", seen)
	}
	for _, name := range []string{filepath.Base(a), filepath.Base(b)} {
		if !strings.Contains(inbox, name+" · pay") {
			t.Errorf("the inbox does not name project %s", name)
		}
	}
}

// An unreadable workspace is listed with the reason; the others still are.
func TestInboxUnreadableWorkspace(t *testing.T) {
	dir := newProject(t, "pay", "broken")
	raise(t, dir, "pay", rounding)
	if err := os.WriteFile(filepath.Join(dir, ".devrites", "work", "broken", mdstore.StateFile), []byte("| schema | 99 |\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := serveFixture(t, dir, Config{})
	body := f.get(f.s.InboxPath()).Body.String()
	if !strings.Contains(body, "<strong>broken</strong>: ") || !strings.Contains(body, "Which currency rounding rule?") {
		t.Errorf("got:\n%s", body)
	}
}

// New creates the key once, private and gitignored, and refuses a project
// without .devrites.
func TestNewKey(t *testing.T) {
	dir := newProject(t, "pay")
	serveFixture(t, dir, Config{})
	fi, err := os.Stat(filepath.Join(dir, ".devrites", caplink.KeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %v, %v; want serve.key with mode 0600", fi, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".devrites", ".gitignore"))
	if !strings.Contains(string(b), "\nserve.key\n") {
		t.Errorf("got .gitignore %q, want serve.key listed", b)
	}
	if _, err := New(Config{Roots: []string{t.TempDir()}}); !errors.Is(err, mdstore.ErrNoWorkspace) {
		t.Errorf("got %v, want no workspace", err)
	}
}

// The live-update stream says "change" when the files change after the
// page was made, and at once when they changed before the stream opened.
func TestEvents(t *testing.T) {
	f := newFixture(t)
	base := startServer(t, f.s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	open := func(path string) *bufio.Reader {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("got %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		return bufio.NewReader(resp.Body)
	}
	waitChange := func(r *bufio.Reader) {
		t.Helper()
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("no change event: %v", err)
			}
			if l == "event: change\n" {
				return
			}
		}
	}
	page := f.get(f.link("pay", q1)).Body.String()
	m := regexp.MustCompile(`data-events="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data-events on the question page")
	}
	question := open(html.UnescapeString(m[1]))
	m = regexp.MustCompile(`data-events="([^"]+)"`).FindStringSubmatch(f.get(f.s.InboxPath()).Body.String())
	inboxStale := html.UnescapeString(m[1])
	inbox := open(inboxStale)
	// A new question in the workspace: both streams say so.
	provisional(t, f.dir, "pay", "New?")
	waitChange(question)
	waitChange(inbox)
	// A stream opened with the stamp of a page made before the change says
	// so at once.
	waitChange(open(inboxStale))
}

// A question routed to several people takes each one's response through
// the page; it stays open, and its link keeps working, until its strategy
// is met. A name outside the route is refused by the engine.
func TestRoutedResponses(t *testing.T) {
	dir := newProject(t, "pay")
	r := rounding
	r.Route, r.Strategy = engine.Names{"alice", "bob"}, "collect-all"
	raise(t, dir, "pay", r)
	f := serveFixture(t, dir, Config{})
	before := snapshot(t, dir)
	w := f.post(f.link("pay", q1), answerForm(f.csrf("pay", q1), "answer", "2", "", "mallory"))
	if w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), "mallory") {
		t.Errorf("a name outside the route: got %d, want 422 naming it:\n%s", w.Code, w.Body)
	}
	unchanged(t, dir, before)
	w = f.post(f.link("pay", q1), answerForm(f.csrf("pay", q1), "answer", "2", "", "alice"))
	body := w.Body.String()
	if w.Code != http.StatusOK || !strings.Contains(body, "response by alice recorded: answered (option 2): Round half up") ||
		!strings.Contains(body, "still open: 1 of 2 responded; waiting for bob") {
		t.Fatalf("got %d:\n%s", w.Code, body)
	}
	if got := field(t, dir, "pay", q1, "status"); got != "open" {
		t.Errorf("status: got %q, want open", got)
	}
	page := f.get(f.link("pay", q1))
	if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), "This question is routed to alice, bob.") ||
		!strings.Contains(page.Body.String(), "responses: 1 of 2 responded; waiting for bob\n  2026-11-29T14:30:00Z alice answered (option 2): Round half up\n") {
		t.Errorf("the link after one response: got %d, want the page with the route and alice's response:\n%s", page.Code, page.Body)
	}
	inbox := f.get(f.s.InboxPath()).Body.String()
	if !strings.Contains(inbox, "· 1 of 2 responded; waiting for bob") {
		t.Errorf("the inbox does not say who is awaited:\n%s", inbox)
	}
	w = f.post(f.link("pay", q1), answerForm(f.csrf("pay", q1), "answer", "2", "", "bob"))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), q1+"</span> answered (option 2): Round half up") {
		t.Errorf("the last response: got %d:\n%s", w.Code, w.Body)
	}
	if got := f.get(f.link("pay", q1)).Code; got != http.StatusForbidden {
		t.Errorf("the link once final: got %d, want 403", got)
	}
}

// Requests read the workspaces one at a time: a page waits while another
// request holds the turn, and is served once it ends; a request that ends
// while it waits gets nothing.
func TestOneReaderAtATime(t *testing.T) {
	f := newFixture(t)
	release, ok := f.s.takeTurn(request(http.MethodGet, "/", nil))
	if !ok {
		t.Fatal("the first request did not get its turn")
	}
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- f.get(f.s.InboxPath()) }()
	select {
	case w := <-done:
		t.Fatalf("the inbox was served (%d) while another request read the files", w.Code)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	select {
	case w := <-done:
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), q1) {
			t.Fatalf("after the turn: got %d, want 200 with %s", w.Code, q1)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the inbox was not served after the turn ended")
	}

	release, _ = f.s.takeTurn(request(http.MethodGet, "/", nil))
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	r := request(http.MethodGet, f.s.InboxPath(), nil).WithContext(ctx)
	cancel()
	if w := f.serve(r); w.Body.Len() != 0 || w.Header().Get("Set-Cookie") != "" {
		t.Fatalf("a request that ended while waiting was served: %d %q", w.Code, w.Body)
	}
}
