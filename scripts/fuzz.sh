#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 2m), on top
# of its stored corpus; a failing input is kept under the package's
# testdata/fuzz/ and the script stops there. scripts/test.sh runs it with
# FUZZTIME=5s.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2m}

files=$(grep -l '^func Fuzz' $(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go') || true)
for file in $files; do
  pkg=./$(dirname "${file#./}")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz $pkg $target for $fuzztime"
    if ! out=$(go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" 2>&1); then
      echo "$out"; exit 1
    fi
  done
done
