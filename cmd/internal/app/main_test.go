package app

import (
	"testing"

	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(scripttest.WithHome(m), map[string]func(){
		"devrites-engine": Main,
		"holdlock":        scripttest.HoldLock,
	})
}

// TestScripts runs the end-to-end scripts in testdata/script against the real
// binary (scripttest.Params lists the extra script commands). Each script
// starts in a fresh directory with a fixed clock. The program "holdlock
// LOCKFILE READYFILE" (run it in the background) holds the workspace lock
// like another engine process would.
func TestScripts(t *testing.T) {
	testscript.Run(t, scripttest.Params("../../../testdata/script"))
}
