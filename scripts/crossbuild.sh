#!/usr/bin/env bash
# Builds the program for macOS, Windows and FreeBSD and vets every package,
# tests included, for macOS and Windows, so that code which compiles only
# on Linux fails the test command. What differs by OS lives in per-OS
# files, which are either unix or Windows ones (and Linux's own); nothing
# differs by architecture, so one architecture stands for each system here
# (scripts/release.sh builds every release target). vet runs for darwin,
# standing for the other unix systems, and for windows; FreeBSD is built.
# The Linux build is the test suite's own. -trimpath keeps the build cache
# independent of where the checkout is; the flags are scripts/release's.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=${TARGETS:-"darwin/amd64 windows/amd64 freebsd/amd64"}
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
