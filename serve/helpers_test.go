package serve

import (
	"context"
	"html"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/internal/testhome"
	"github.com/devrites/devrites-engine/mdstore"
)

// The clocks of the tests: questions are raised at raisedAt, and the
// server looks at them at servedAt, when a 15m SLA is overdue.
var (
	raisedAt = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)
	servedAt = time.Date(2026, 11, 29, 14, 30, 0, 0, time.UTC)
)

func at(t time.Time) func() time.Time { return func() time.Time { return t } }

// fixture is a project with workspaces and a server for it.
type fixture struct {
	t   *testing.T
	dir string
	s   *Server
	now time.Time
}

// newProject makes a project with the workspace slug (init).
func newProject(t *testing.T, slugs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, slug := range slugs {
		if _, err := mdstore.Init(mdstore.Locator{Root: dir}, slug, raisedAt); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// eng is the engine of a workspace of the project, at a time.
func eng(t *testing.T, dir, slug string, now time.Time) *engine.Engine {
	t.Helper()
	ws, err := mdstore.Find(mdstore.Locator{Root: dir, Slug: slug})
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.Open(ws, at(now), time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// raise raises a question in a workspace of the project and returns its qid.
func raise(t *testing.T, dir, slug string, r engine.RaiseRequest) string {
	t.Helper()
	res, err := eng(t, dir, slug, raisedAt).Raise(context.Background(), r, "")
	if err != nil {
		t.Fatal(err)
	}
	return res.QID
}

// provisional raises a validating question that stays open without
// holding the pause (AFK mode allows it provisionally), and returns its qid.
func provisional(t *testing.T, dir, slug, question string) string {
	t.Helper()
	afk := filepath.Join(dir, ".devrites", "AFK")
	if err := os.WriteFile(afk, []byte("allow_gates: [validating]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, afk)
	defer os.Remove(afk)
	res, err := eng(t, dir, slug, raisedAt).Raise(context.Background(),
		engine.RaiseRequest{Gate: "validating", Question: question, Options: []string{"Yes", "No"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != engine.Provisional {
		t.Fatalf("got %s, want a provisional question", res.Outcome)
	}
	return res.QID
}

// rounding is the question of the specification's examples.
var rounding = engine.RaiseRequest{Slice: "3 — payments", Gate: "blocking", Question: "Which currency rounding rule?",
	Options: []string{"Banker's rounding — logic: unbiased · business: matches ledger", "Round half up — simpler, biased upward on .5"}}

// newFixture serves a project with the workspace pay and its awaited
// question q-2026-11-29-001, the rounding question.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := newProject(t, "pay")
	if id := raise(t, dir, "pay", rounding); id != "q-2026-11-29-001" {
		t.Fatalf("raised %s, want q-2026-11-29-001", id)
	}
	return serveFixture(t, dir, Config{})
}

func serveFixture(t *testing.T, dir string, cfg Config) *fixture {
	t.Helper()
	if cfg.Roots == nil {
		cfg.Roots = []string{dir}
	}
	if cfg.Now == nil {
		cfg.Now = at(servedAt)
	}
	if cfg.Burst == 0 {
		cfg.Burst = 1000
	}
	cfg.LockTimeout = 200 * time.Millisecond
	cfg.Poll = 20 * time.Millisecond
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return &fixture{t: t, dir: dir, s: s, now: servedAt}
}

// request is a request as a browser at 127.0.0.1 sends it.
func request(method, target string, form url.Values) *http.Request {
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, target, body)
	r.Host = "127.0.0.1:7878"
	r.RemoteAddr = "127.0.0.1:40000"
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return r
}

func (f *fixture) serve(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	f.s.ServeHTTP(w, r)
	return w
}

func (f *fixture) get(target string) *httptest.ResponseRecorder {
	return f.serve(request(http.MethodGet, target, nil))
}

func (f *fixture) post(target string, form url.Values) *httptest.ResponseRecorder {
	return f.serve(request(http.MethodPost, target, form))
}

// link is the capability link of a question of the fixture's project.
func (f *fixture) link(slug, id string) string {
	p := f.s.projects[0]
	return "/q/" + slug + "/" + id + "?t=" + p.key.Token(p.dir, slug, id, f.fingerprint(slug, id))
}

// fingerprint is the fingerprint of a question of the fixture's project,
// or "" when there is no such question.
func (f *fixture) fingerprint(slug, id string) string {
	q, err := eng(f.t, f.dir, slug, f.now).Get(id)
	if err != nil {
		return ""
	}
	return q.Fingerprint
}

// page opens a question's page and returns its form's CSRF token.
func (f *fixture) csrf(slug, id string) string {
	f.t.Helper()
	w := f.get(f.link(slug, id))
	if w.Code != http.StatusOK {
		f.t.Fatalf("GET %s: got %d, want 200:\n%s", f.link(slug, id), w.Code, w.Body)
	}
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(w.Body.String())
	if m == nil {
		f.t.Fatalf("no CSRF token on the page:\n%s", w.Body)
	}
	return html.UnescapeString(m[1])
}

// answerForm is a form as the page sends it.
func answerForm(csrf, action, choice, words, by string) url.Values {
	v := url.Values{"csrf": {csrf}, "action": {action}, "by": {by}}
	if choice != "" {
		v.Set("choice", choice)
	}
	if words != "" {
		v.Set("words", words)
	}
	return v
}

// snapshot is every file under dir with its bytes and mode.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = fi.Mode().String()
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[rel] = fi.Mode().String() + "\n" + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// unchanged fails when a file under dir differs from the snapshot.
func unchanged(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := snapshot(t, dir)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s: removed", p)
		} else if a != b {
			t.Errorf("%s: changed:\n--- before\n%s\n--- after\n%s", p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: created", p)
		}
	}
}

// block reads a field of a question in questions.md.
func field(t *testing.T, dir, slug, id, key string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".devrites", "work", slug, mdstore.QuestionsFile))
	if err != nil {
		t.Fatal(err)
	}
	q := mdstore.ParseQuestions(b).Find(id)
	if q == nil {
		t.Fatalf("%s is not in questions.md", id)
	}
	return q.Value(key)
}

// cursor reads a key of state.md.
func cursor(t *testing.T, dir, slug, key string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ".devrites", "work", slug, mdstore.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	v, _ := mdstore.ParseState(b).Get(key)
	return v
}

// listen binds 127.0.0.1:0, the only address the tests listen on.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startServer serves s on 127.0.0.1:0 and returns its base URL.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(s)
	srv.Listener.Close()
	srv.Listener = listen(t)
	srv.Start()
	t.Cleanup(func() {
		s.Close() // ends the live-update streams, which Close would wait for
		srv.Close()
	})
	return srv.URL
}

// trustFile trusts the file at path in the package's trust store.
func trustFile(t *testing.T, path string) { testhome.Trust(t, path) }
