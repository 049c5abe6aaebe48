// Package testtool is how a test says that a program it needs (git, tmux,
// Chromium, node, curl, openssl) is missing. On a developer's machine the
// test is skipped, and scripts/test.sh lists it at the end, so that "all
// tests passed" never hides one that did not run; under CI, which installs
// every tool (.ci/run), the test fails instead.
//
// CI is on when the CI environment variable is set to anything but "",
// "0" or "false", as CI services set it. The skips are listed through
// TESTTOOL_SKIPPED, a file scripts/test.sh names: each skip appends one
// line to it. Skips for other reasons (another operating system, no /proc)
// are plain t.Skip calls and are not listed.
package testtool
