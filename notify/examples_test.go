//go:build unix

package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/devrites/devrites-engine/internal/testtool"
)

// The scripts in examples/notify are run as users run them: notify.Fire with
// "sh <script>" as the hook command, against a local server standing in for
// the real service, which records what it receives.

// hostile is question text that must arrive as data: shell syntax, quotes,
// backslashes, control characters, Slack mentions, and UTF-8.
const hostile = "Drop $(touch pwned) `touch pwned2`; rm -rf keep? \"quoted\" 'single' back\\slash\n<!channel> & <https://evil.example|click>\ttab — ünïcode €"

type received struct {
	method, path string
	header       http.Header
	body         []byte
}

// service is a local HTTP server that records every request.
type service struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []received
}

func newService(t *testing.T, status int) *service {
	t.Helper()
	s := &service{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, received{r.Method, r.URL.Path, r.Header.Clone(), b})
		s.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *service) only(t *testing.T) received {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(s.reqs))
	}
	return s.reqs[0]
}

// runExample fires the example script through Fire, with the environment
// given, and checks that no hostile text ran.
func runExample(t *testing.T, script string, env map[string]string, ev Event) Outcome {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		testtool.Missing(t, "curl is not installed: the example scripts need it")
	}
	path, err := filepath.Abs(filepath.Join("..", "examples", "notify", script))
	if err != nil {
		t.Fatal(err)
	}
	// No proxy or curl config of the machine may reach the local server.
	for _, k := range []string{"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"} {
		t.Setenv(k, "")
	}
	t.Setenv("NO_PROXY", "*")
	t.Setenv("no_proxy", "*")
	t.Setenv("CURL_HOME", t.TempDir())
	for k, v := range env {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "keep"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := Hook{Command: "sh '" + path + "'", Dir: dir, Timeout: 20 * time.Second, Log: filepath.Join(dir, "notify.log"), Now: fixedNow}
	o := Fire(context.Background(), h, ev)
	for _, f := range []string{"pwned", "pwned2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: question text ran as a command", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "keep")); err != nil {
		t.Errorf("keep/ is gone: question text ran as a command")
	}
	return o
}

func hostileEvent(event string) Event {
	ev := sampleEvent()
	ev.Event, ev.Question, ev.Proposed = event, hostile, "Keep it — \"safe\" $(id)"
	return ev
}

func TestExampleNtfy(t *testing.T) {
	svc := newService(t, http.StatusOK)
	o := runExample(t, "ntfy.sh", map[string]string{"NTFY_URL": svc.URL + "/devrites-pay", "NTFY_TOKEN": "tk_secret"}, hostileEvent("raised"))
	if !o.OK() {
		t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
	}
	r := svc.only(t)
	if r.method != http.MethodPost || r.path != "/devrites-pay" {
		t.Errorf("got %s %s, want POST /devrites-pay", r.method, r.path)
	}
	for k, want := range map[string]string{
		"Title":         "DevRites pay: q-2026-11-29-001 raised (blocking, SLA 15m)",
		"Priority":      "high",
		"Tags":          "raising_hand",
		"Authorization": "Bearer tk_secret",
	} {
		if got := r.header.Get(k); got != want {
			t.Errorf("header %s: got %q, want %q", k, got, want)
		}
	}
	want := hostile + "\n\nSlice: 3 — payments\nProposed: Keep it — \"safe\" $(id)\n" +
		"Answer: devrites-engine state resolve q-2026-11-29-001 \"<answer>\"\n"
	if string(r.body) != want {
		t.Errorf("got body %q, want %q", r.body, want)
	}
}

func TestExampleNtfyResolvedAndNoToken(t *testing.T) {
	svc := newService(t, http.StatusOK)
	ev := hostileEvent("resolved")
	ev.Gate = "escalating"
	o := runExample(t, "ntfy.sh", map[string]string{"NTFY_URL": svc.URL + "/t", "NTFY_TOKEN": ""}, ev)
	if !o.OK() {
		t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
	}
	r := svc.only(t)
	if r.header.Get("Priority") != "low" || r.header.Get("Tags") != "white_check_mark" || r.header.Get("Authorization") != "" {
		t.Errorf("got headers %v, want low priority, a check mark and no Authorization", r.header)
	}
	if strings.Contains(string(r.body), "Answer:") {
		t.Errorf("got body %q, want no resolve command for a resolved question", r.body)
	}
}

// A service that refuses makes the hook fail, which the engine reports.
func TestExampleServiceRefuses(t *testing.T) {
	svc := newService(t, http.StatusInternalServerError)
	o := runExample(t, "ntfy.sh", map[string]string{"NTFY_URL": svc.URL + "/t"}, hostileEvent("raised"))
	if o.OK() || o.Exit == 0 {
		t.Errorf("got exit %d, want the hook to fail on HTTP 500", o.Exit)
	}
	if !strings.Contains(o.Output, "500") {
		t.Errorf("got output %q, want curl's error naming the 500", o.Output)
	}
}

func TestExampleSlack(t *testing.T) {
	svc := newService(t, http.StatusOK)
	o := runExample(t, "slack.sh", map[string]string{"SLACK_WEBHOOK_URL": svc.URL + "/services/T000/B000/XXXX"}, hostileEvent("reminder"))
	if !o.OK() {
		t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
	}
	r := svc.only(t)
	if r.method != http.MethodPost || r.path != "/services/T000/B000/XXXX" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("got %s %s %s, want a JSON POST to the webhook path", r.method, r.path, r.header.Get("Content-Type"))
	}
	if !utf8.Valid(r.body) {
		t.Errorf("got a body that is not UTF-8: %q", r.body)
	}
	var msg map[string]any
	if err := json.Unmarshal(r.body, &msg); err != nil {
		t.Fatalf("got body %q, not JSON: %v", r.body, err)
	}
	if len(msg) != 1 {
		t.Errorf("got fields %v, want only text", msg)
	}
	text, _ := msg["text"].(string)
	slackEscaped := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(hostile)
	want := "*Reminder: still waiting for an answer* — pay `q-2026-11-29-001` (blocking, SLA 15m)\nSlice: 3 — payments\n&gt;" +
		slackEscaped + "\nProposed: Keep it — \"safe\" $(id)\nAnswer with: `devrites-engine state resolve q-2026-11-29-001 \"&lt;answer&gt;\"`"
	if text != want {
		t.Errorf("got text\n%q\nwant\n%q", text, want)
	}
	if strings.Contains(text, "<!channel>") {
		t.Errorf("got an unescaped <!channel> in %q", text)
	}
}

type pdEvent struct {
	RoutingKey  string `json:"routing_key"`
	EventAction string `json:"event_action"`
	DedupKey    string `json:"dedup_key"`
	Payload     *struct {
		Summary       string            `json:"summary"`
		Source        string            `json:"source"`
		Severity      string            `json:"severity"`
		Component     string            `json:"component"`
		Group         string            `json:"group"`
		Class         string            `json:"class"`
		CustomDetails map[string]string `json:"custom_details"`
	} `json:"payload"`
}

func pagerduty(t *testing.T, ev Event) (received, pdEvent) {
	t.Helper()
	svc := newService(t, http.StatusAccepted)
	o := runExample(t, "pagerduty.sh", map[string]string{"PAGERDUTY_ROUTING_KEY": "R0UT1NGKEY", "PAGERDUTY_EVENTS_URL": svc.URL + "/v2/enqueue"}, ev)
	if !o.OK() {
		t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
	}
	r := svc.only(t)
	if r.method != http.MethodPost || r.path != "/v2/enqueue" || r.header.Get("Content-Type") != "application/json" {
		t.Errorf("got %s %s %s, want a JSON POST to /v2/enqueue", r.method, r.path, r.header.Get("Content-Type"))
	}
	if !utf8.Valid(r.body) {
		t.Errorf("got a body that is not UTF-8: %q", r.body)
	}
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	var pd pdEvent
	if err := dec.Decode(&pd); err != nil {
		t.Fatalf("got body %q: %v", r.body, err)
	}
	return r, pd
}

func TestExamplePagerDutyTrigger(t *testing.T) {
	for _, event := range []string{"raised", "reminder", "test"} {
		t.Run(event, func(t *testing.T) {
			_, pd := pagerduty(t, hostileEvent(event))
			if pd.RoutingKey != "R0UT1NGKEY" || pd.EventAction != "trigger" || pd.DedupKey != "q-2026-11-29-001" || pd.Payload == nil {
				t.Fatalf("got %+v, want a trigger with the qid as dedup_key", pd)
			}
			p := pd.Payload
			if p.Summary != "DevRites pay q-2026-11-29-001 (blocking, SLA 15m): "+hostile || p.Severity != "error" ||
				p.Source != "devrites/pay" || p.Component != "3 — payments" || p.Group != "devrites" || p.Class != "blocking" {
				t.Errorf("got payload %+v", p)
			}
			want := map[string]string{"event": event, "question": hostile, "proposed": "Keep it — \"safe\" $(id)", "slice": "3 — payments",
				"sla": "15m", "raised_at": "2026-11-29T14:02:11Z", "resolve": `devrites-engine state resolve q-2026-11-29-001 "<answer>"`,
				"workspace": "/w/.devrites/work/pay"}
			for k, v := range want {
				if p.CustomDetails[k] != v {
					t.Errorf("custom_details.%s: got %q, want %q", k, p.CustomDetails[k], v)
				}
			}
		})
	}
}

func TestExamplePagerDutyResolve(t *testing.T) {
	for _, event := range []string{"resolved", "dropped", "rejected"} {
		t.Run(event, func(t *testing.T) {
			_, pd := pagerduty(t, hostileEvent(event))
			if pd.RoutingKey != "R0UT1NGKEY" || pd.EventAction != "resolve" || pd.DedupKey != "q-2026-11-29-001" || pd.Payload != nil {
				t.Errorf("got %+v, want a resolve of dedup_key q-2026-11-29-001 and no payload", pd)
			}
		})
	}
}

func TestExamplePagerDutySeverityAndLongSummary(t *testing.T) {
	ev := hostileEvent("raised")
	ev.Gate = "escalating"
	ev.Question = strings.Repeat("é€", 600) // 3000 bytes
	_, pd := pagerduty(t, ev)
	if pd.Payload.Severity != "critical" {
		t.Errorf("got severity %q, want critical", pd.Payload.Severity)
	}
	if n := len(pd.Payload.Summary); n > 1024 || n < 900 {
		t.Errorf("got a summary of %d bytes, want it cut to at most 1024", n)
	}
	if !utf8.ValidString(pd.Payload.Summary) || strings.ContainsRune(pd.Payload.Summary, utf8.RuneError) {
		t.Errorf("got a summary with a split character: %q", pd.Payload.Summary[len(pd.Payload.Summary)-12:])
	}
	if pd.Payload.CustomDetails["question"] != ev.Question {
		t.Errorf("got the question cut in custom_details, want it whole")
	}
}

func TestExampleWebhookSigned(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		testtool.Missing(t, "openssl is not installed: webhook.sh needs it for the signature")
	}
	svc := newService(t, http.StatusNoContent)
	const secret = "s3cret with spaces & $(quotes)"
	ev := hostileEvent("rejected")
	ev.Answer = "split the slice"
	o := runExample(t, "webhook.sh", map[string]string{"WEBHOOK_URL": svc.URL + "/hooks/devrites", "WEBHOOK_SECRET": secret}, ev)
	if !o.OK() {
		t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
	}
	r := svc.only(t)
	if r.method != http.MethodPost || r.path != "/hooks/devrites" || r.header.Get("Content-Type") != "application/json" ||
		r.header.Get("X-Devrites-Event") != "rejected" {
		t.Errorf("got %s %s %v, want a JSON POST with the event header", r.method, r.path, r.header)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(r.body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if got := r.header.Get("X-Devrites-Signature-256"); !hmac.Equal([]byte(got), []byte(want)) {
		t.Errorf("got signature %q, want %q", got, want)
	}
	// The body is the hook's stdin, byte for byte.
	if !strings.HasSuffix(string(r.body), "}\n") {
		t.Errorf("got body %q, want the stdin document with its newline", r.body)
	}
	var doc Event
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatalf("got body %q: %v", r.body, err)
	}
	if doc.Schema != Schema || doc.Event != "rejected" || doc.QID != ev.QID || doc.Question != hostile || doc.Answer != "split the slice" || len(doc.Options) != 3 {
		t.Errorf("got %+v, want the event as Fire wrote it", doc)
	}
}

// answerURL is a capability link as the engine makes it (serve_url set).
const answerURL = "https://laptop.example.ts.net:7878/q/pay/q-2026-11-29-001?t=Xy-_0aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789ab"

// With an answer link, an open question's ntfy message gets an "Answer"
// button opening it; a final question's, or a link ntfy's action syntax
// cannot carry as it is, gets none.
func TestExampleNtfyAnswerButton(t *testing.T) {
	for _, tc := range []struct {
		name, event, url, want string
	}{
		{"raised", "raised", answerURL, "view, Answer, " + answerURL},
		{"reminder", "reminder", answerURL, "view, Answer, " + answerURL},
		{"resolved", "resolved", answerURL, ""},
		{"comma in the link", "raised", "http://h/q/a,b/c?t=x", ""},
		{"not http", "raised", "javascript:alert(1)", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newService(t, http.StatusOK)
			ev := hostileEvent(tc.event)
			ev.AnswerURL = tc.url
			o := runExample(t, "ntfy.sh", map[string]string{"NTFY_URL": svc.URL + "/t", "NTFY_TOKEN": ""}, ev)
			if !o.OK() {
				t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
			}
			r := svc.only(t)
			if got := r.header.Get("Actions"); got != tc.want {
				t.Errorf("got Actions %q, want %q", got, tc.want)
			}
			if tc.event == "raised" && !strings.HasSuffix(string(r.body), "Answer: devrites-engine state resolve q-2026-11-29-001 \"<answer>\"\n") {
				t.Errorf("got body %q, want the resolve command kept", r.body)
			}
		})
	}
}

// The Slack message of an open question links its answer page, as a Slack
// link after the escaped text.
func TestExampleSlackAnswerLink(t *testing.T) {
	for _, tc := range []struct {
		event string
		link  bool
	}{{"raised", true}, {"rejected", false}} {
		t.Run(tc.event, func(t *testing.T) {
			svc := newService(t, http.StatusOK)
			ev := hostileEvent(tc.event)
			ev.AnswerURL = answerURL
			o := runExample(t, "slack.sh", map[string]string{"SLACK_WEBHOOK_URL": svc.URL + "/services/T000/B000/XXXX"}, ev)
			if !o.OK() {
				t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
			}
			var msg map[string]string
			if err := json.Unmarshal(svc.only(t).body, &msg); err != nil {
				t.Fatal(err)
			}
			link := "\n<" + answerURL + "|Answer in the browser>"
			if got := strings.HasSuffix(msg["text"], link); got != tc.link {
				t.Errorf("got text ending %q, want the link %v", msg["text"][max(0, len(msg["text"])-120):], tc.link)
			}
			if strings.Count(msg["text"], "<") != map[bool]int{true: 1, false: 0}[tc.link] {
				t.Errorf("got text %q, want every other < escaped", msg["text"])
			}
		})
	}
}

// TestExampleSecretFromFile: a secret is read from the file NAME_FILE names
// outside the project directory; a file inside it is refused and nothing
// is sent.
func TestExampleSecretFromFile(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		testtool.Missing(t, "openssl is not installed: webhook.sh needs it for the signature")
	}
	svc := newService(t, http.StatusNoContent)
	const secret = "from a file"
	file := filepath.Join(t.TempDir(), "webhook-secret")
	if err := os.WriteFile(file, []byte(secret+"\nsecond line ignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := runExample(t, "webhook.sh", map[string]string{"WEBHOOK_URL": svc.URL, "WEBHOOK_SECRET": "", "WEBHOOK_SECRET_FILE": file}, hostileEvent("raised"))
	if !o.OK() {
		t.Fatalf("hook failed: %v\n%s", o.Err, o.Output)
	}
	r := svc.only(t)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(r.body)
	if got, want := r.header.Get("X-Devrites-Signature-256"), "sha256="+hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Errorf("got signature %q, want %q (the file's first line as the key)", got, want)
	}

	// Inside the project directory (the hook's working directory): refused.
	o = runExample(t, "webhook.sh", map[string]string{"WEBHOOK_URL": svc.URL, "WEBHOOK_SECRET": "", "WEBHOOK_SECRET_FILE": "./secret"}, hostileEvent("raised"))
	if o.OK() || !strings.Contains(o.Output, "WEBHOOK_SECRET_FILE is inside the project directory") {
		t.Errorf("got %v, %q, want a refusal", o.Err, o.Output)
	}
	svc.only(t) // still the one request
}
