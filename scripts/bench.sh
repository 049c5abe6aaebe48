#!/bin/sh
# Measures one `state resolve` (process start to exit) against the I/O floor
# (scripts/iofloor: same flock, same two reads, same fsync'd atomic writes) on
# workspaces of 10, 1,000 and 10,000 questions, and prints medians, the
# ratio engine/floor and peak RSS. Targets (SPEC §12): at most 1.5x the
# floor at 1,000 questions, linear growth, under 32 MB at 10,000.
#
#   scripts/bench.sh [-runs N] [-sizes 10,1000,10000] [-dir DIR]
#
# -dir picks the file system measured (default: $TMPDIR, else /tmp).
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT INT TERM
go build -o "$bin/devrites-engine" ./cmd/devrites-engine
go build -o "$bin/iofloor" ./scripts/iofloor
go run ./scripts/bench -engine "$bin/devrites-engine" -floor "$bin/iofloor" "$@"
