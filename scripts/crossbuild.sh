#!/usr/bin/env bash
# Builds the program for each release target (scripts/release's list) and
# vets every package, tests included, for macOS and Windows, so that code
# which compiles only on Linux fails the test command. What differs by OS
# lives in per-OS files, which are either unix or Windows ones (and Linux's
# own); nothing differs by architecture. So vet runs for darwin, standing
# for the other unix systems, and for windows; FreeBSD is built.
# -trimpath keeps the build cache independent of where the checkout is, and
# the flags are scripts/release's, so its test links what this compiled.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64"}
export CGO_ENABLED=0
vetted=""
for t in $targets; do
  export GOOS=${t%/*} GOARCH=${t#*/}
  go build -trimpath -buildvcs=false -tags urfave_cli_no_docs -o /dev/null ./cmd/devrites-engine
  if [[ $GOOS == darwin || $GOOS == windows ]] && [[ $vetted != *" $GOOS"* ]]; then
    go vet -trimpath ./...
    vetted+=" $GOOS"
  fi
done
echo "built for: $targets; vetted for:$vetted"
