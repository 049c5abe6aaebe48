#!/usr/bin/env bash
# The project's test command: formatting, vet, every test under the race
# detector (unit, end-to-end scripts, concurrency, crash), then each fuzz
# target for a few seconds on top of its stored corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}

unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...
go test -race -count=1 ./...

grep -l '^func Fuzz' $(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go') 2>/dev/null |
while read -r file; do
  pkg=./$(dirname "$file")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz $pkg $target for $fuzztime"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/dev/null
  done
done
echo "all tests passed"
