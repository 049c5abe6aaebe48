package serve

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/devrites/devrites-engine/internal/testtool"
)

// go test ./serve -run TestBrowser -screenshots writes the screenshots of
// docs/serve.md.
var screenshots = flag.Bool("screenshots", false, "write docs/serve-inbox.png and docs/serve-question.png from TestBrowser")

// chromium is the browser the tests drive: Debian's chromium, which .ci/run
// installs, or another Chromium or Chrome on PATH.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testtool.Missing(t, "no Chromium on PATH: the browser test needs it (.ci/run installs Debian's chromium)")
	return ""
}

// browser starts one headless Chromium, with a viewport the size of a
// phone, and returns the context of its first tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-extensions", true),
		chromedp.Flag("proxy-server", "direct://"), chromedp.Flag("proxy-bypass-list", "*"))
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first run starts the browser; it has no timeout of its own.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
		t.Fatalf("starting %s: %v", chromium(t), err)
	}
	return ctx
}

// step runs actions with a timeout, failing the test with what was meant.
func step(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func value[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// screenshot writes the whole page to docs/<name> when -screenshots is set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !*screenshots {
		return
	}
	step(t, ctx, "scroll to the top", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`document.activeElement.blur(); window.scrollTo(0, 0)`)(ctx, tg)
		return err
	}))
	png := value(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	path := filepath.Join("..", "docs", name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// The whole path of a person in a real browser, with one Chromium: the
// inbox updates itself when a question is raised; a question opened from
// the inbox is answered by picking option 2 (questions.md records choice
// 2, state.md is running again); the focus moves through the form in
// reading order; and without JavaScript a question is rejected with words.
func TestBrowser(t *testing.T) {
	dir := newProject(t, "pay")
	raise(t, dir, "pay", rounding)
	logq := provisional(t, dir, "pay", "Log every rounding decision at info level?")
	f := serveFixture(t, dir, Config{})
	base := startServer(t, f.s)
	ctx := browser(t)
	start := time.Now()

	// The inbox, the awaited question first.
	step(t, ctx, "open the inbox", chromedp.Navigate(base+f.s.InboxPath()), chromedp.WaitVisible(chromedp.CSS("ol.inbox")))
	text := value(t, ctx, "read the inbox", chromedp.Text(chromedp.CSS("main")))
	if !strings.Contains(text, q1+" Which currency rounding rule?") || !strings.Contains(text, "awaited") || !strings.Contains(text, "overdue") {
		t.Fatalf("the inbox shows:\n%s", text)
	}
	// A question raised now appears without a reload by hand.
	ledger := provisional(t, dir, "pay", "Keep the old ledger export?")
	step(t, ctx, "see the new question appear", chromedp.WaitVisible(chromedp.CSS(`a.q[href^="/q/pay/`+ledger+`?"]`)))
	screenshot(t, ctx, "serve-inbox.png")

	// Open the awaited question from the inbox and pick option 2.
	step(t, ctx, "open the question", chromedp.Click(chromedp.CSS(`a.q[href^="/q/pay/`+q1+`?"]`)), chromedp.WaitVisible(chromedp.CSS("form.answer")))
	if got := value(t, ctx, "read the option set", chromedp.Text(chromedp.CSS("pre.show"))); !strings.Contains(got, "  2. Round half up — simpler, biased upward on .5") {
		t.Fatalf("the page shows:\n%s", got)
	}
	// Focus follows the reading order: skip link, the inbox link, the
	// options (one stop for the group), words, name, then the buttons.
	var order []string
	for i := 0; i < 8; i++ {
		step(t, ctx, "press Tab", chromedp.KeyEvent(kb.Tab))
		order = append(order, value(t, ctx, "read the focus", chromedp.Evaluate[string](
			`(function(e){return e.id || e.className || (e.tagName+" "+(e.value||e.textContent)).trim()})(document.activeElement)`)))
	}
	want := "skip,A All open questions,choice-1,words,by,primary,BUTTON reject,BUTTON drop"
	if got := strings.Join(order, ","); got != want {
		t.Errorf("got the focus order %s, want %s", got, want)
	}
	step(t, ctx, "fill in the form", chromedp.Click(chromedp.CSS(`label[for="choice-2"]`)),
		chromedp.SendKeys(chromedp.CSS("#by"), "Ann Example"))
	screenshot(t, ctx, "serve-question.png")
	step(t, ctx, "answer", chromedp.Click(chromedp.CSS(`button[value="answer"]`)), chromedp.WaitVisible(chromedp.CSS("p.done")))
	if got := value(t, ctx, "read the result", chromedp.Text(chromedp.CSS("p.done"))); got != q1+" answered (option 2): Round half up" {
		t.Errorf("the result says %q", got)
	}
	for k, want := range map[string]string{"status": "answered", "choice": "2", "answer": "Round half up", "answered_by": "Ann Example"} {
		if got := field(t, dir, "pay", q1, k); got != want {
			t.Errorf("questions.md %s: got %q, want %q", k, got, want)
		}
	}
	if got := cursor(t, dir, "pay", "status"); got != "running" {
		t.Errorf("state.md status: got %q, want running", got)
	}

	// Without JavaScript, in a second tab: reject a question with words.
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	// The first run opens the tab, which lives as long as its context: no
	// timeout on it.
	if err := chromedp.Do(tab, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})); err != nil {
		t.Fatalf("turn JavaScript off: %v", err)
	}
	step(t, tab, "open a question without JavaScript", chromedp.Navigate(base+f.link("pay", logq)), chromedp.WaitVisible(chromedp.CSS("form.answer")),
		chromedp.SendKeys(chromedp.CSS("#words"), "log at debug, not info"), chromedp.SendKeys(chromedp.CSS("#by"), "Ann"),
		chromedp.Click(chromedp.CSS(`button[value="reject"]`)), chromedp.WaitVisible(chromedp.CSS("p.done")))
	if got := field(t, dir, "pay", logq, "status"); got != "rejected" || field(t, dir, "pay", logq, "answer") != "log at debug, not info" {
		t.Errorf("questions.md: got %s %q, want rejected with the words", got, field(t, dir, "pay", logq, "answer"))
	}
	t.Logf("browser steps took %s", time.Since(start).Round(time.Millisecond))
}
