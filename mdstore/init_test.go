package mdstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var initClock = time.Date(2026, 11, 29, 14, 2, 11, 0, time.UTC)

// dirTree maps every path under dir to its content, "dir" or "link".
func dirTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		default:
			out[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// failing makes initWrite fail for the file named name, until the test ends.
func failing(t *testing.T, name string) error {
	t.Helper()
	errDiskFull := errors.New("no space left on device")
	orig := initWrite
	initWrite = func(path string, data []byte) error {
		if filepath.Base(path) == name {
			return errDiskFull
		}
		return orig(path, data)
	}
	t.Cleanup(func() { initWrite = orig })
	return errDiskFull
}

// A failed init leaves the project as it was: no workspace, no temporary
// directory, no .devrites or work directory it created, ACTIVE unchanged;
// and a retry succeeds.
func TestInitFailureLeavesNothing(t *testing.T) {
	for _, name := range []string{QuestionsFile, StateFile, LockFile, "ACTIVE"} {
		for _, project := range []string{"new project", "existing workspace"} {
			t.Run(name+"/"+project, func(t *testing.T) {
				root := t.TempDir()
				if project == "existing workspace" {
					if _, err := Init(Locator{Root: root}, "old", initClock); err != nil {
						t.Fatal(err)
					}
				}
				before := dirTree(t, root)
				errDiskFull := failing(t, name)
				ws, err := Init(Locator{Root: root}, "pay", initClock)
				if !errors.Is(err, errDiskFull) {
					t.Fatalf("got workspace %v, error %v, want %v", ws, err, errDiskFull)
				}
				if after := dirTree(t, root); !reflect.DeepEqual(after, before) {
					t.Errorf("got files %q after the failed init, want %q", after, before)
				}
				initWrite = WriteAtomic
				ws, err = Init(Locator{Root: root}, "pay", initClock)
				if err != nil {
					t.Fatalf("got %v on retry, want the workspace created", err)
				}
				b, err := os.ReadFile(filepath.Join(root, ".devrites", "ACTIVE"))
				if err != nil || string(b) != "pay\n" {
					t.Errorf("got ACTIVE %q (%v), want pay", b, err)
				}
				for _, f := range []string{StateFile, QuestionsFile, DecisionsFile, LockFile} {
					if _, err := os.Stat(ws.Path(f)); err != nil {
						t.Errorf("got %v, want %s in the workspace", err, f)
					}
				}
				if left := leftovers(t, filepath.Dir(ws.Dir)); len(left) > 0 {
					t.Errorf("got %q left in the work directory, want no temporary directory", left)
				}
			})
		}
	}
}

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, en := range ents {
		if strings.HasPrefix(en.Name(), ".init-") {
			out = append(out, en.Name())
		}
	}
	return out
}

// Of several inits of one slug at once, exactly one creates the workspace;
// the others get ErrExists and leave nothing behind.
func TestInitConcurrentSameSlug(t *testing.T) {
	root := t.TempDir()
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = Init(Locator{Root: root}, "pay", initClock)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrExists):
			t.Errorf("got %v, want nil or ErrExists", err)
		}
	}
	if won != 1 {
		t.Errorf("got %d inits that created the workspace, want 1", won)
	}
	if left := leftovers(t, filepath.Join(root, ".devrites", "work")); len(left) > 0 {
		t.Errorf("got %q left in the work directory, want no temporary directory", left)
	}
	ws := &Workspace{Dir: filepath.Join(root, ".devrites", "work", "pay")}
	if b, err := ws.ReadFile(StateFile); err != nil || !strings.Contains(string(b), "| status | running |") {
		t.Errorf("got state.md %q (%v), want a whole workspace", b, err)
	}
}

// A directory already at the workspace's place, even an empty one, is
// refused and left as it is.
func TestInitRefusesExistingDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".devrites", "work", "pay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	before := dirTree(t, root)
	if _, err := Init(Locator{Root: root}, "pay", initClock); !errors.Is(err, ErrExists) {
		t.Fatalf("got %v, want ErrExists", err)
	}
	if after := dirTree(t, root); !reflect.DeepEqual(after, before) {
		t.Errorf("got files %q, want %q", after, before)
	}
}
