package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/devrites/devrites-engine/mdstore"
)

// keepAlive is how often an idle stream sends a comment, so that proxies
// and phones do not drop it.
const keepAlive = 15 * time.Second

// stamp says how the files of the workspaces stand: the size, time and
// inode of each state.md and questions.md, and which workspaces there are.
// Every write of the engine replaces a file by rename, a new inode, so any
// change changes the stamp. It is short and reveals nothing.
func stamp(wss []*mdstore.Workspace) string {
	h := sha256.New()
	for _, ws := range wss {
		fmt.Fprintf(h, "%s\x00", ws.Dir)
		for _, name := range []string{mdstore.StateFile, mdstore.QuestionsFile} {
			fi, err := os.Stat(ws.Path(name))
			if err != nil {
				fmt.Fprintf(h, "%s -\x00", name)
				continue
			}
			fmt.Fprintf(h, "%s %d %d %d\x00", name, fi.Size(), fi.ModTime().UnixNano(), inode(fi))
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// allWorkspaces are the workspaces of every project.
func (s *Server) allWorkspaces() []*mdstore.Workspace {
	var out []*mdstore.Workspace
	for _, p := range s.projects {
		out = append(out, p.workspaces()...)
	}
	return out
}

// inboxEventsURL is the stream of the inbox, from the stamp of a page.
func (s *Server) inboxEventsURL(since string) string {
	return "/events?t=" + url.QueryEscape(s.inboxToken()) + "&since=" + since
}

// inboxEvents streams a change event whenever a workspace's files change.
func (s *Server) inboxEvents(w http.ResponseWriter, r *http.Request) {
	if !s.inboxAllowed(r) {
		s.fail(w, r, http.StatusForbidden, "This link does not open the inbox", "Open the inbox first.")
		return
	}
	s.stream(w, r, func() string { return stamp(s.allWorkspaces()) })
}

// questionEventsURL is the stream of a question page.
func questionEventsURL(t target, since string) string {
	return "/q/" + url.PathEscape(t.slug) + "/" + url.PathEscape(t.qid) + "/events?t=" + url.QueryEscape(t.token) + "&since=" + since
}

// questionEvents streams a change event whenever the question's workspace
// changes, while the question is open.
func (s *Server) questionEvents(w http.ResponseWriter, r *http.Request) {
	t, ok := s.authorize(w, r)
	if !ok {
		return
	}
	release, ok := s.takeTurn(r)
	if !ok {
		return
	}
	_, _, ok = s.current(w, r, t)
	release() // the stream only looks at the files' stamps
	if !ok {
		return
	}
	s.stream(w, r, func() string { return stamp([]*mdstore.Workspace{t.ws}) })
}

// stream is a server-sent event stream: "change" when the stamp differs
// from the one the page was made with (since) or last seen. It ends with
// the request or when the server closes.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, now func() string) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	last := r.URL.Query().Get("since")
	fmt.Fprint(w, "retry: 3000\n\n")
	poll := time.NewTicker(s.cfg.Poll)
	defer poll.Stop()
	idle := time.NewTicker(keepAlive)
	defer idle.Stop()
	check := func() {
		if cur := now(); cur != last {
			if last != "" {
				fmt.Fprint(w, "event: change\ndata: the files changed\n\n")
			}
			last = cur
		}
	}
	for {
		// A stream nobody reads ends at the next write past its deadline.
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		check()
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		case <-idle.C:
			fmt.Fprint(w, ": still here\n\n")
		case <-poll.C:
		}
	}
}
