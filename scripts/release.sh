#!/usr/bin/env bash
# Builds the release archives for every target into dist/ (or $OUT), each
# with the version stamped, and dist/SHA256SUMS:
#   ./scripts/release.sh v1.2.3
# Check a download with: sha256sum -c --ignore-missing SHA256SUMS
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: scripts/release.sh VERSION" >&2; exit 2; }
go run ./scripts/release -out "${OUT:-dist}" "$1"
