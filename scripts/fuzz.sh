#!/usr/bin/env bash
# Runs every fuzz target of the module for FUZZTIME each (default 2m), on top
# of its stored corpus; a failing input is kept under the package's
# testdata/fuzz/ and the script stops there. scripts/test.sh runs it with
# FUZZTIME=1s.
#
# Go 1.26's fuzzing coordinator can report a bare "context deadline
# exceeded" when -fuzztime ends while a worker is busy (golang/go#75804,
# fixed in Go 1.27): nothing was found and no input is written. Such a run
# counts as done when the fuzzer had run inputs (its progress lines say
# "execs: N"), else it is repeated once; a failure that writes an input,
# panics or fails a check stops the script at once, as does the same bare
# failure twice without an input run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2m}
# Each package's test binary is built once, with the fuzzing
# instrumentation, and run for each of its targets (go test -fuzz would
# link it again for every target); the corpus it finds goes where go test
# -fuzz keeps it.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
cache=$(go env GOCACHE)/fuzz

# fuzz runs target $3 of package directory $1 (import path $2); its output
# is in $out afterwards.
fuzz() {
  out=$(cd "$1" && "$bin/$(basename "$1").test" -test.run='^$' -test.fuzz="^$3\$" \
    -test.fuzztime="$fuzztime" -test.fuzzcachedir="$cache/$2" 2>&1)
}

# deadline_only reports whether $out is the coordinator's bare deadline
# failure and nothing else.
deadline_only() {
  grep -q 'context deadline exceeded' <<<"$out" &&
    ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' <<<"$out"
}

files=$(grep -l '^func Fuzz' $(git ls-files '*_test.go' 2>/dev/null || find . -name '*_test.go') || true)
for dir in $(for f in $files; do dirname "${f#./}"; done | sort -u); do
  pkg=$(go list "./$dir")
  go test -c -fuzz=. -o "$bin/$(basename "$dir").test" "./$dir"
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$dir"/*_test.go); do
    echo "fuzz ./$dir $target for $fuzztime"
    if fuzz "$dir" "$pkg" "$target"; then
      continue
    fi
    if deadline_only && grep -qE 'execs: [1-9]' <<<"$out"; then
      echo "  the fuzzing engine stopped at its deadline after $(grep -oE 'execs: [0-9]+' <<<"$out" | tail -1) with nothing found"
      continue
    fi
    if deadline_only; then
      echo "  the fuzzing engine stopped at its deadline with nothing found; again"
      if fuzz "$dir" "$pkg" "$target"; then
        continue
      fi
    fi
    echo "$out"
    exit 1
  done
done
