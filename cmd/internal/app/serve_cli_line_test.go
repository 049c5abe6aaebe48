//go:build unix

package app

import (
	"html"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
)

// The CLI line of a question page runs as printed: in a project of two
// features it names the question's own (--slug), and copied from the page
// with the answer filled in it records the answer on that question, in its
// workspace (docs/commands.md, A person at a terminal).
func TestServeCLILineRunsAsPrinted(t *testing.T) {
	dir := serveProject(t)
	for _, args := range [][]string{
		{"question", "raise", "--gate", "blocking", "--question", "Rounding?", "--option", "Bankers"},
		{"init", "auth"},
		{"question", "raise", "--gate", "blocking", "--question", "Session length?", "--option", "1h", "--option", "1d"},
	} {
		if out, err := scripttest.Program("devrites-engine", dir, args...).CombinedOutput(); err != nil && !strings.Contains(string(out), "paused") {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	cmd, inbox, _ := startServe(t, dir)
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := inbox[:strings.Index(inbox, "/?t=")]
	link := regexp.MustCompile(`href="(/q/auth/q-2026-11-29-002\?t=[^"]+)"`).FindStringSubmatch(get(t, inbox))
	if link == nil {
		t.Fatalf("the inbox does not link auth's question")
	}
	page := get(t, base+html.UnescapeString(link[1]))
	show := regexp.MustCompile(`(?s)<pre class="show">(.*?)</pre>`).FindStringSubmatch(page)
	if show == nil {
		t.Fatalf("no option set on the page:\n%s", page)
	}
	const want = `resolve: devrites-engine state resolve --slug auth q-2026-11-29-002 "<answer>"`
	var line string
	for _, l := range strings.Split(html.UnescapeString(show[1]), "\n") {
		if strings.HasPrefix(l, "resolve: ") {
			line = l
		}
	}
	if line != want {
		t.Fatalf("got CLI line %q, want %q", line, want)
	}
	words := strings.Fields(strings.Replace(strings.TrimPrefix(line, "resolve: "), `"<answer>"`, "2", 1))
	res, err := scripttest.Program(words[0], dir, words[1:]...).CombinedOutput()
	if err != nil || !strings.Contains(string(res), "q-2026-11-29-002 answered (option 2): 1d") {
		t.Fatalf("%v: %v: %s", words, err, res)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".devrites", "work", "auth", "questions.md"))
	if err != nil || !strings.Contains(string(b), "answer: 1d\n") {
		t.Errorf("auth's question is not answered (%v):\n%s", err, b)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}
