#!/usr/bin/env bash
# Long runs, opt-in, on top of scripts/test.sh: the crash test with 1000
# raise-and-resolve cycles instead of 100; the random walk of three git
# clones with 1200 steps instead of 120 (a new seed each run, logged); the
# concurrency tests COUNT times (default 10), under the race detector and
# without (see scripts/test.sh for the one that only runs without); every
# fuzz target for FUZZTIME (default 2m).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-10}

go test -count=1 -run '^TestCrashSafety$' ./cmd/internal/app -long
go test -count=1 -run '^TestClonesRandomWalk$' ./cmd/internal/app -long
go test -race -count="$count" -run '^(TestConcurrentRaises|TestConcurrentRaiseAndResolve|TestWriterIgnoringLockBetweenScanAndAppend)$' ./cmd/internal/app
go test -count="$count" -run '^TestConcurrent' ./cmd/internal/app
FUZZTIME=${FUZZTIME:-2m} ./scripts/fuzz.sh
echo "soak passed"
