package serve

import (
	"bytes"
	"crypto/rand"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/internal/loopback"
	"github.com/devrites/devrites-engine/mdstore"
)

//go:embed templates/*.html static/*
var files embed.FS

// Defaults of Config.
const (
	DefaultRate  = 3  // requests a second, per client address, refilled
	DefaultBurst = 30 // requests a client may make at once
	DefaultPoll  = time.Second
)

// Config is what a Server serves and how.
type Config struct {
	// Roots are project directories (each holding .devrites) or their
	// .devrites directories. Every workspace under .devrites/work and
	// .devrites/features of each is served.
	Roots []string
	// Now is the clock of ages, SLAs and answers (DEVRITES_NOW); nil is
	// the wall clock.
	Now func() time.Time
	// LockTimeout is how long an answer waits for the workspace lock.
	LockTimeout time.Duration
	// AllowRemote turns off the check that a request names a loopback
	// host (which stops DNS rebinding while only loopback is served).
	AllowRemote bool
	// TLS says that the server is reached over TLS: cookies are Secure.
	TLS bool
	// Rate and Burst size the token bucket of each client address; zero
	// takes the defaults.
	Rate  float64
	Burst int
	// Poll is how often live updates look at the files; zero takes the
	// default.
	Poll time.Duration
	// Logf, when set, is told of every answer recorded and every failure
	// of the server itself (status 500).
	Logf func(format string, args ...any)
}

// Server serves the inbox and the question pages of the workspaces of its
// projects. It is an http.Handler.
type Server struct {
	cfg      Config
	projects []*project
	pages    *template.Template
	limit    *limiter
	turn     chan struct{} // held by the request reading workspace files
	handler  http.Handler
	done     chan struct{}
	close    sync.Once
	// inboxKey is the inbox token of this run: random, made by New, so an
	// inbox address, its cookie and its stream stop working when the
	// server restarts. Question links are the projects' HMACs and live on.
	inboxKey string
}

// project is one root: its .devrites directory and key.
type project struct {
	dir      string // the project directory, as tokens are made over it
	devrites string
	name     string // its base name, shown when there are several
	key      caplink.Key
	// dirs are the names of the project directory messages may use: as
	// given, and with its links resolved; longest first.
	dirs []string
}

// New prepares a server for the projects of cfg. It makes each project's
// key (.devrites/serve.key) when there is none: the only file it writes.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Rate <= 0 {
		cfg.Rate = DefaultRate
	}
	if cfg.Burst <= 0 {
		cfg.Burst = DefaultBurst
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.LockTimeout <= 0 {
		cfg.LockTimeout = 10 * time.Second
	}
	if len(cfg.Roots) == 0 {
		return nil, mdstore.Errorf(mdstore.ErrNoWorkspace, "no project to serve")
	}
	s := &Server{cfg: cfg, done: make(chan struct{}), limit: newLimiter(cfg.Rate, cfg.Burst), turn: make(chan struct{}, 1),
		inboxKey: rand.Text()}
	seen := map[string]bool{}
	for _, root := range cfg.Roots {
		devrites, err := mdstore.DevritesDir(mdstore.Locator{Root: root})
		if err != nil {
			return nil, err
		}
		dir := caplink.Project(filepath.Dir(devrites))
		if seen[dir] {
			continue
		}
		seen[dir] = true
		key, err := caplink.Ensure(devrites)
		if err != nil {
			return nil, err
		}
		dirs := []string{dir}
		if given := filepath.Dir(devrites); given != dir {
			dirs = append(dirs, given)
		}
		slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
		s.projects = append(s.projects, &project{dir: dir, devrites: devrites, name: filepath.Base(dir), key: key, dirs: dirs})
	}
	var err error
	s.pages, err = template.New("").Funcs(template.FuncMap{"head": newHead, "join": strings.Join}).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	s.handler = s.routes()
	return s, nil
}

// Close ends the live-update streams, so that a shutdown does not wait for
// them. The server keeps answering other requests.
func (s *Server) Close() { s.close.Do(func() { close(s.done) }) }

// InboxPath is the inbox with its token: the address a person opens.
func (s *Server) InboxPath() string { return "/?t=" + s.inboxToken() }

// inboxToken opens the inbox of every project, for this run only.
func (s *Server) inboxToken() string { return s.inboxKey }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// routes is the handler: security headers on every response, then the
// host check, the rate limit and the cross-origin check, then the pages.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.inTurn(s.inbox))
	mux.HandleFunc("GET /events", s.inboxEvents)
	mux.HandleFunc("GET /q/{slug}/{qid}", s.inTurn(s.question))
	mux.HandleFunc("POST /q/{slug}/{qid}", s.readForm(s.inTurn(s.answer)))
	mux.HandleFunc("GET /q/{slug}/{qid}/events", s.questionEvents)
	static, _ := fs.Sub(files, "static")
	mux.Handle("GET /static/{file}", http.StripPrefix("/static/", http.FileServerFS(static))) // files, no listing
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusNotFound, "Not found", "There is no page here.")
	})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, http.StatusForbidden, "Refused", "This form was sent from another site. Nothing was recorded.")
	}))
	var h http.Handler = cop.Handler(mux)
	h = s.limited(h)
	if !s.cfg.AllowRemote {
		h = s.loopbackHost(h)
	}
	return secured(h)
}

// takeTurn waits until no other request reads workspace files, and
// returns what ends its turn; ok is false when the request ended first.
// Requests read the files one at a time: a workspace of 10,000 questions
// takes about 12 MB to read and parse, and eight requests at once held
// 205 MB between them.
func (s *Server) takeTurn(r *http.Request) (release func(), ok bool) {
	select {
	case s.turn <- struct{}{}:
		return func() { <-s.turn }, true
	case <-r.Context().Done():
		return nil, false
	}
}

// writeTimeout bounds the writing of a page: a client that does not read
// loses its page, and holds nothing else.
const writeTimeout = 30 * time.Second

// inTurn runs a handler that reads workspace files in its turn. The turn
// covers the handler's reads and transaction only: the page it asks for
// (s.render) is kept, and rendered and written once the turn is over, so
// a client that reads slowly holds no other request up. The request was
// read whole before (readForm, for a form; a GET has no body).
func (s *Server) inTurn(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		release, ok := s.takeTurn(r)
		if !ok {
			return // the client went away: nobody to answer
		}
		page := &later{header: w.Header()}
		h(page, r)
		// What the request read is collected before the next one reads:
		// the heap then holds one request's files at a time, not two.
		runtime.GC()
		release()
		if page.then != nil {
			page.then()
		}
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(writeTimeout))
		if page.name == "" {
			s.logf("%s %s: no page", r.Method, r.URL.Path)
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		s.render(w, r, page.status, page.name, page.data)
	}
}

// later is the response of a handler in its turn: the headers it set (on
// the real response's header map) and the page it asked for.
type later struct {
	header http.Header
	status int
	name   string
	data   any
	then   func() // runs once the turn is over, before the page is rendered
}

// afterTurn runs fn once the request's turn is over (at once outside one).
func afterTurn(w http.ResponseWriter, fn func()) {
	if l, ok := w.(*later); ok {
		l.then = fn
		return
	}
	fn()
}

func (l *later) Header() http.Header { return l.header }
func (l *later) WriteHeader(int)     {}
func (l *later) Write([]byte) (int, error) {
	return 0, errors.New("serve: a handler in its turn writes its page through render")
}

// readForm reads the whole body of a form before the handler waits for
// its turn: a client that sends slowly holds up nobody else. A body over
// maxForm, one that does not parse, and a field given twice (which value
// would be meant?) are refused, and nothing is recorded.
func (s *Server) readForm(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				s.fail(w, r, http.StatusRequestEntityTooLarge, "Not recorded", "The form is larger than "+strconv.Itoa(maxForm>>10)+" KiB.")
				return
			}
			s.fail(w, r, http.StatusBadRequest, "Not recorded", "The form could not be read.")
			return
		}
		for name, values := range r.PostForm {
			if len(values) > 1 {
				s.fail(w, r, http.StatusBadRequest, "Not recorded", "The form gives the field "+strconv.Quote(name)+" "+strconv.Itoa(len(values))+" times; send it once.")
				return
			}
		}
		h(w, r)
	}
}

// contentSecurity allows scripts, styles and images from the server alone:
// no inline script or style, no frames, forms posted only to the server.
const contentSecurity = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// secured sets the headers every response carries. Pages hold capability
// tokens in their links: they are never cached, never framed, and never
// named in a Referer.
func secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurity)
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// loopbackHost refuses requests that do not name a loopback host: while
// only loopback is served, a page of another site whose name was made to
// resolve to 127.0.0.1 (DNS rebinding) gets nothing.
func (s *Server) loopbackHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopback.Is(loopback.HostOf(r.Host)) {
			s.fail(w, r, http.StatusMisdirectedRequest, "Wrong address",
				"This server answers only at a loopback address such as 127.0.0.1 or localhost.")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// render writes a page of the template name with status.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	if l, ok := w.(*later); ok {
		l.status, l.name, l.data = status, name, data
		return
	}
	var b bytes.Buffer
	if err := s.pages.ExecuteTemplate(&b, name, data); err != nil {
		s.logf("%s %s: template %s: %v", r.Method, r.URL.Path, name, err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// head is what the top of every page needs: its title, its live-update
// stream (none on pages that do not change), the inbox link (for those who
// may see it), and whether it refreshes itself without JavaScript.
type head struct {
	Title, Events, Inbox string
	Refresh              bool
}

func newHead(title, events, inbox string, refresh bool) head {
	return head{Title: title, Events: events, Inbox: inbox, Refresh: refresh}
}

// message is the page of a refusal or an error.
type message struct {
	Title, Text string
	Hints       []string
	Inbox       string
}

// fail writes the page of a refusal.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, status int, title, text string, hints ...string) {
	if status >= 500 {
		s.logf("%s %s: %d %s", r.Method, r.URL.Path, status, text)
	}
	s.render(w, r, status, "message.html", message{Title: title, Text: s.relative(text), Hints: s.relativeAll(hints), Inbox: s.inboxLink(r)})
}

// relative is text with the projects' directories left out of its paths
// ("/home/alice/pay/.devrites/work/x/state.md" reads
// ".devrites/work/x/state.md"), or a project's name where the directory
// stands alone: a page, which may be seen from another machine, never
// shows where the files are on this one. The log keeps the full text.
func (s *Server) relative(text string) string {
	for _, p := range s.projects {
		for _, dir := range p.dirs {
			text = strings.ReplaceAll(text, dir+string(filepath.Separator), "")
			text = strings.ReplaceAll(text, dir, p.name)
		}
	}
	return text
}

func (s *Server) relativeAll(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = s.relative(t)
	}
	return out
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// workspaces lists the feature directories of a project.
func (p *project) workspaces() []*mdstore.Workspace { return mdstore.Workspaces(p.devrites) }

// workspace is the feature directory of slug in the project, or nil.
func (p *project) workspace(slug string) *mdstore.Workspace {
	if mdstore.CheckSlug(slug) != nil {
		return nil
	}
	ws, err := mdstore.Find(mdstore.Locator{Root: p.devrites, Slug: slug})
	if err != nil {
		return nil
	}
	return ws
}
