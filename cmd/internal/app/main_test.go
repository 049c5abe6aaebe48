package app

import (
	"flag"
	"testing"

	"github.com/devrites/devrites-engine/cmd/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// longFlag makes the long tests (TestCrashSafety, the git walk) run longer.
// updateFlag rewrites the golden files of the scripts whose cmp fails
// (testscript's UpdateScripts): read every rewritten golden in the diff.
var updateFlag = flag.Bool("update", false, "TestScripts: rewrite the golden files a cmp finds different")

var longFlag = flag.Bool("long", false, "TestCrashSafety: 1000 raise-and-resolve cycles instead of 100; longer git walks")

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
	p := scripttest.Params("../../../testdata/script")
	p.UpdateScripts = *updateFlag
	testscript.Run(t, p)
}
