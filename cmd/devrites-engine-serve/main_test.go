package main

import (
	"os/exec"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/devrites/devrites-engine/cmd/internal/app"
	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
)

// TestMain registers both programs: a script's `devrites-engine serve`
// finds devrites-engine-serve on the PATH testscript gives it, and is
// handed over to it as it would be when installed.
func TestMain(m *testing.M) {
	testscript.Main(scripttest.WithHome(m), map[string]func(){
		"devrites-engine": func() { app.Main(app.Options{}) },
		app.ServeProgram:  main,
	})
}

// TestScripts runs the end-to-end scripts of serve, in testdata/serve.
func TestScripts(t *testing.T) {
	testscript.Run(t, scripttest.Params("../../testdata/serve"))
}

// serveCmd is this test binary started as devrites-engine-serve (see
// TestMain) in dir, with a clean environment.
func serveCmd(dir string, args ...string) *exec.Cmd {
	return scripttest.Program(app.ServeProgram, dir, args...)
}

// newProject is a project with one feature, made by `init pay`.
func newProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := serveCmd(dir, "init", "pay").CombinedOutput(); err != nil {
		t.Fatalf("init: %v: %s", err, out)
	}
	return dir
}
