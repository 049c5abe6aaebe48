#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 2m), on top
# of its stored corpus; a failing input is kept under the package's
# testdata/fuzz/ and the script stops there. scripts/test.sh runs it with
# FUZZTIME=3s.
#
# Go 1.26's fuzzing coordinator can report a bare "context deadline
# exceeded" when -fuzztime ends while a worker is busy (golang/go#75804,
# fixed in Go 1.27): nothing was found and no input is written. Such a run
# is repeated once; a failure that writes an input, panics or fails a check
# stops the script at once, as does the same bare failure twice.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2m}

# fuzz runs one target; its output is in $out afterwards.
fuzz() {
  out=$(go test -run='^$' -fuzz="^$2\$" -fuzztime="$fuzztime" "$1" 2>&1)
}

# deadline_only reports whether $out is the coordinator's bare deadline
# failure and nothing else.
deadline_only() {
  grep -q 'context deadline exceeded' <<<"$out" &&
    ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' <<<"$out"
}

files=$(grep -l '^func Fuzz' $(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go') || true)
for file in $files; do
  pkg=./$(dirname "${file#./}")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "fuzz $pkg $target for $fuzztime"
    if fuzz "$pkg" "$target"; then
      continue
    fi
    if deadline_only; then
      echo "  the fuzzing engine stopped at its deadline with nothing found; again"
      if fuzz "$pkg" "$target"; then
        continue
      fi
    fi
    echo "$out"
    exit 1
  done
done
