package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestReleaseHostArchive builds the archive for the machine the test runs
// on, twice: the two are byte for byte the same, SHA256SUMS names the
// archive with its digest, and the program inside prints the version it was
// stamped with.
func TestReleaseHostArchive(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the archive is unpacked as a tar; Windows gets a zip")
	}
	first, names := hostRelease(t)
	want := fmt.Sprintf("devrites-engine_0.0.0-test_%s_%s.tar.gz", runtime.GOOS, runtime.GOARCH)
	if len(names) != 1 || names[0] != want {
		t.Fatalf("got archives %q, want [%s]", names, want)
	}
	second := t.TempDir()
	if _, err := Release("v0.0.0-test", []string{runtime.GOOS + "/" + runtime.GOARCH}, second); err != nil {
		t.Fatal(err)
	}
	a := read(t, filepath.Join(first, want))
	if b := read(t, filepath.Join(second, want)); !bytes.Equal(a, b) {
		t.Errorf("two builds of the same source differ: %d and %d bytes", len(a), len(b))
	}

	sums := string(read(t, filepath.Join(first, "SHA256SUMS")))
	if line := fmt.Sprintf("%x  %s\n", sha256.Sum256(a), want); sums != line {
		t.Errorf("SHA256SUMS is %q, want %q", sums, line)
	}

	files := untar(t, a)
	dir := strings.TrimSuffix(want, ".tar.gz")
	for _, f := range []string{"devrites-engine", "README.md", "CHANGELOG.md"} {
		if _, ok := files[dir+"/"+f]; !ok {
			t.Errorf("archive lacks %s/%s; it holds %v", dir, f, keys(files))
		}
	}
	prog := filepath.Join(t.TempDir(), "devrites-engine")
	if err := os.WriteFile(prog, files[dir+"/devrites-engine"], 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(prog, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "devrites-engine version v0.0.0-test") {
		t.Errorf("--version printed %q, want it to start with %q", out, "devrites-engine version v0.0.0-test")
	}
}

// The tests run from the module root, with the archives' time fixed.
func TestMain(m *testing.M) {
	if err := os.Chdir("../.."); err != nil {
		panic(err)
	}
	os.Setenv("SOURCE_DATE_EPOCH", "1764547200")
	code := m.Run()
	if hostDir != "" {
		os.RemoveAll(hostDir)
	}
	os.Exit(code)
}

var (
	hostOnce  sync.Once
	hostDir   string
	hostNames []string
	hostErr   error
)

// hostRelease is the release of v0.0.0-test for this machine, built once
// for all the tests that read it.
func hostRelease(t *testing.T) (string, []string) {
	t.Helper()
	hostOnce.Do(func() {
		if hostDir, hostErr = os.MkdirTemp("", "devrites-release-test-"); hostErr == nil {
			hostNames, hostErr = Release("v0.0.0-test", []string{runtime.GOOS + "/" + runtime.GOARCH}, hostDir)
		}
	})
	if hostErr != nil {
		t.Fatal(hostErr)
	}
	return hostDir, hostNames
}

func TestReleaseRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct{ version, target, want string }{
		{"1.2.3", "linux/amd64", `version "1.2.3" is not of the form v1.2.3`},
		{"v1.2", "linux/amd64", `version "v1.2" is not of the form v1.2.3`},
		{"v1.2.3", "linux", `target "linux" is not GOOS/GOARCH`},
	} {
		t.Run(tt.version+" "+tt.target, func(t *testing.T) {
			_, err := Release(tt.version, []string{tt.target}, dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a refused release wrote %d files", len(entries))
	}
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func untar(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Uname != "" || h.Uid != 0 || h.ModTime.Unix() != 1764547200 {
			t.Errorf("%s: owner %q/%d, time %v: want no owner and SOURCE_DATE_EPOCH", h.Name, h.Uname, h.Uid, h.ModTime)
		}
		files[h.Name], _ = io.ReadAll(tr)
	}
}

func keys(m map[string][]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestInstallDocSteps runs docs/install.md's commands as printed: the
// archive steps (with the version of a test release, and HOME in a
// temporary directory) in the directory the release was written to, and
// the install from a checkout.
func TestInstallDocSteps(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the archive steps are Linux's (sha256sum, tar)")
	}
	dist, _ := hostRelease(t)
	doc := string(read(t, "docs/install.md"))
	steps := strings.ReplaceAll(block(t, doc, "## From a release archive"), "1.2.3", "0.0.0-test")
	steps = strings.ReplaceAll(steps, "linux_amd64", runtime.GOOS+"_"+runtime.GOARCH)
	out := runSh(t, dist, steps, "HOME="+t.TempDir())
	for _, want := range []string{": OK\n", "devrites-engine version v0.0.0-test"} {
		if !strings.Contains(out, want) {
			t.Errorf("the archive steps printed %q, want %q in it", out, want)
		}
	}

	gobin := t.TempDir()
	runSh(t, ".", block(t, doc, "## From a checkout"), "GOBIN="+gobin)
	v, err := exec.Command(filepath.Join(gobin, "devrites-engine"), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(v), "devrites-engine version devel") {
		t.Errorf("a checkout's install prints %q", v)
	}
}

// block is the first sh block after the heading that starts with heading.
func block(t *testing.T, doc, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, "\n"+heading)
	if !ok {
		t.Fatalf("docs/install.md has no %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	code, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatalf("no sh block under %q", heading)
	}
	return code
}

func runSh(t *testing.T, dir, script string, env ...string) string {
	t.Helper()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s\nfailed: %v\n%s", script, err, out)
	}
	return string(out)
}
