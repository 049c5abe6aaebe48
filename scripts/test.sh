#!/usr/bin/env bash
# The project's test command: gofmt, go vet and staticcheck; every test of
# every package, under the race detector where goroutines meet; then each
# fuzz target for FUZZTIME (default 1s) on top of its stored corpus. Long
# runs are opt-in: scripts/soak.sh.
#
# The race detector makes every process start several times slower, and the
# end-to-end scripts and the crash test start the binary hundreds of times,
# so ./cmd/... (and ./scripts/..., whose tests build the program) runs
# without it. Two of its concurrency tests then run again
# under it: a hundred processes waiting for the lock at once, and a writer
# inside the engine's transaction. Their processes are the race-built test
# binary, so a race inside one process fails the test. scripts/soak.sh runs
# TestConcurrentRaiseAndResolve under it too; TestConcurrentRaisesWithPlainWriter
# never: its writer appends every 5 ms, longer than a plain transaction takes
# and shorter than a race-built one.
#
# A test whose program is missing (git, tmux, Chromium, node with the
# TypeScript client, curl, openssl) is skipped and listed at the end; with
# CI set (as CI services set it) it fails instead (internal/testtool).
set -euo pipefail
cd "$(dirname "$0")/.."
staticcheck=honnef.co/go/tools/cmd/staticcheck@v0.8.2 # 2026.2.2, for Go 1.26

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
./scripts/crossbuild.sh
go run "$staticcheck" ./...

TESTTOOL_SKIPPED=$(mktemp)
export TESTTOOL_SKIPPED
trap 'rm -f "$TESTTOOL_SKIPPED"' EXIT

go test -race -count=1 $(go list ./... | grep -v -e '/cmd/' -e '/scripts/')
# scripts/release builds the program itself: its tests gain nothing from the
# race detector, and after ./cmd/... the packages they build are cached.
go test -count=1 ./cmd/... ./scripts/...
go test -race -count=1 -run '^(TestConcurrentRaises|TestWriterIgnoringLockBetweenScanAndAppend)$' ./cmd/internal/app

FUZZTIME=${FUZZTIME:-1s} ./scripts/fuzz.sh
if [ -s "$TESTTOOL_SKIPPED" ]; then
  echo "skipped, a program they need is missing (see README.md, Testing):"
  sort -u "$TESTTOOL_SKIPPED" | sed 's/^/  /'
  echo "all tests that ran passed; $(sort -u "$TESTTOOL_SKIPPED" | wc -l | tr -d ' ') skipped"
else
  echo "all tests passed"
fi
