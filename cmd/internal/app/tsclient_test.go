package app

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/devrites/devrites-engine/internal/testtool"
)

// tsClient is the TypeScript SDK's client that TestTypeScriptClient runs;
// .ci/run installs its node_modules (npm ci).
const tsClient = "../../../mcp/testdata/tsclient"

// TestTypeScriptClient: a client of another ecosystem, the official
// TypeScript SDK (@modelcontextprotocol/sdk, pinned in package-lock.json),
// drives devrites-engine mcp over stdio: it lists the tools; a form the
// person accepts answers the question in place; a cancelled one leaves it
// open and the pause held; a wait ends when another process answers; a
// declined form rejects. Locally it is skipped while node or the client's
// node_modules is missing; under CI it fails instead.
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(tsClient, "node_modules", "@modelcontextprotocol", "sdk"))
	}
	if err != nil {
		testtool.Missing(t, "no TypeScript client: %v (run npm ci in %s)", err, tsClient)
	}
	dir, ws := newProject(t)
	// The test binary is the engine when it runs under that name.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	engine := filepath.Join(t.TempDir(), engineName)
	if err := os.Symlink(self, engine); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, "client.mjs", engine, dir)
	cmd.Dir, cmd.Env = tsClient, childEnv()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()

	steps := map[string]map[string]any{}
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		var step map[string]any
		if err := json.Unmarshal(lines.Bytes(), &step); err != nil {
			t.Fatalf("node printed %q: %v", lines.Text(), err)
		}
		name, _ := step["step"].(string)
		steps[name] = step
		if name == "waiting" { // answered by another process while the client waits
			time.Sleep(200 * time.Millisecond)
			if r := runEngine(dir, "state", "resolve", "--by", "dana", step["qid"].(string), "2"); r.code != 0 {
				t.Errorf("resolve: exit %d: %s", r.code, r.stderr)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}

	tools, _ := steps["tools"]["names"].([]any)
	if len(tools) != 7 || steps["tools"]["schemas"] != true {
		t.Errorf("tools: %v", steps["tools"])
	}
	question := func(step string) map[string]any {
		q, _ := steps[step]["question"].(map[string]any)
		return q
	}
	if s, q := steps["accept"], question("accept"); s["outcome"] != "answered" || s["asked"] != "accepted" ||
		q["answered_via"] != "elicitation" || q["answered_by"] != "ts-person" || q["choice"] != 2.0 {
		t.Errorf("accepted form: %v", s)
	}
	if s, q := steps["cancel"], question("cancel"); s["outcome"] != "paused" || q["status"] != "open" ||
		s["resume"] != `devrites-engine state resolve q-2026-11-29-002 "<answer>"` {
		t.Errorf("cancelled form: %v", s)
	}
	if s, q := steps["waited"], question("waited"); s["result"] != "final" || q["status"] != "answered" || q["answered_by"] != "dana" {
		t.Errorf("wait: %v", s)
	}
	if s, q := steps["decline"], question("decline"); s["outcome"] != "rejected" ||
		q["answer"] != "declined in ts-harness: the person did not approve" || !strings.Contains(s["next_action"].(string), "reslice") {
		t.Errorf("declined form: %v", s)
	}
	form, _ := steps["forms"]["first"].(map[string]any)
	if steps["forms"]["count"] != 3.0 || !strings.HasPrefix(form["message"].(string), "Slice 3 — payments — HITL (blocking, SLA 15m). Which rounding?") {
		t.Errorf("forms: %v", steps["forms"])
	}
	b, _ := os.ReadFile(filepath.Join(ws, "decisions.md"))
	if strings.Count(string(b), "answered_via: elicitation") != 2 {
		t.Errorf("decisions.md:\n%s", b)
	}
}
