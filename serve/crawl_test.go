package serve

import (
	"context"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
)

// attrURL finds the addresses a page names: links, scripts, styles, form
// actions and live-update streams.
var attrURL = regexp.MustCompile(`(?:href|src|action|data-events)="([^"]*)"`)

// A GET never changes anything (chat unfurlers and link scanners open
// links): every link of every page, opened with GET and HEAD, with its
// token and without, leaves every file of the project byte for byte as it
// was.
func TestGetChangesNothing(t *testing.T) {
	dir := newProject(t, "pay", "auth", "broken")
	raise(t, dir, "pay", rounding)
	provisional(t, dir, "pay", "Log the rounding?")
	answered := "1"
	if _, err := eng(t, dir, "pay", raisedAt).Raise(context.Background(), engine.RaiseRequest{Gate: "advisory",
		Question: "Answered already?", Options: []string{"Yes"}, Answered: &answered}, ""); err != nil {
		t.Fatal(err)
	}
	raise(t, dir, "auth", engine.RaiseRequest{Gate: "blocking", Question: "<script>alert(1)</script> rotate keys?",
		Options: []string{"Now", "Next week"}, Tags: []string{"auth-boundary"}})
	if err := os.WriteFile(filepath.Join(dir, ".devrites", "work", "broken", mdstore.QuestionsFile),
		[]byte("# Questions\n\n## q-2026-11-29-001\nquestion: no status\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := serveFixture(t, dir, Config{})
	before := snapshot(t, dir)

	seen := map[string]int{}
	queue := []string{f.s.InboxPath()}
	for len(queue) > 0 {
		target := queue[0]
		queue = queue[1:]
		if _, done := seen[target]; done {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond) // streams end here
		r := request(http.MethodGet, target, nil).WithContext(ctx)
		w := f.serve(r)
		cancel()
		seen[target] = w.Code
		head := request(http.MethodHead, target, nil)
		ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
		f.serve(head.WithContext(ctx))
		cancel()
		if !strings.HasPrefix(w.Header().Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range attrURL.FindAllStringSubmatch(w.Body.String(), -1) {
			u := html.UnescapeString(m[1])
			if strings.HasPrefix(u, "#") {
				continue // a place on the same page
			}
			if !strings.HasPrefix(u, "/") {
				t.Errorf("%s links outside the server: %s", target, u)
				continue
			}
			queue = append(queue, u)
			// The same address without its token, and with a wrong one.
			if base, _, ok := strings.Cut(u, "?"); ok {
				queue = append(queue, base, base+"?t=wrong")
			}
		}
	}
	questions, streams := 0, 0
	for u, code := range seen {
		switch {
		case strings.HasPrefix(u, "/q/") && strings.Contains(u, "?t=") && !strings.Contains(u, "/events") && code == 200:
			questions++
		case strings.Contains(u, "events?t=") && code == 200:
			streams++
		}
	}
	// Three open questions (pay's two, auth's one), and a stream for the
	// inbox and for each question page.
	if questions != 3 || streams != 4 {
		t.Errorf("opened %d question pages and %d streams, want 3 and 4: %v", questions, streams, seen)
	}
	unchanged(t, dir, before)
}
