#!/usr/bin/env bash
# Vets every package and builds the program for each release target
# (scripts/release's list), so that code which compiles only on Linux fails
# the test command. Tests that can run only on one OS say so by build tag.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64"}
for t in $targets; do
  export GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0
  go vet ./...
  go build -o /dev/null ./cmd/devrites-engine
done
echo "built and vetted for: $targets"
