#!/bin/sh
# Times three commands (process start to exit), each against its own I/O
# floor (scripts/iofloor: the same flock, reads and fsync'd writes, and
# nothing else), on workspaces of 10, 1,000 and 10,000 questions:
#
#   resolve  `state resolve` of the awaited question; the floor reads
#            state.md, questions.md and decisions.md, writes the first two
#            back by fsync'd atomic rename and appends one decision, fsync'd
#   raise    a blocking `question raise` that pauses, on a running
#            workspace; the floor reads state.md and questions.md and
#            writes both back, with one question appended, the same way
#   list     `questions list --status all --json`; the floor reads
#            questions.md under a shared lock and prints it
#
# and prints medians, the ratio engine/floor, peak RSS (ru_maxrss), the
# growth with the size, and which targets are met: docs/performance.md's (resolve
# within 2.5x the floor at 1,000 and at 10,000 questions, every command
# under 32 MB at 10,000) and raise within 2x the floor at 1,000.
#
#   scripts/bench.sh [-runs N] [-sizes 10,1000,10000] [-commands resolve,raise,list] [-dir DIR] [-rss]
#
# -dir picks the file system measured (default: $TMPDIR, else /tmp). -rss
# measures, untimed, the peak RSS of each command that reads a whole
# workspace (doctor, state show, qid next, remind, wait, ...) instead:
#
#   scripts/bench.sh -rss -runs 3 -sizes 10000
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT INT TERM
# Built as the README installs it (the build tag leaves out urfave/cli's
# man-page and markdown generators, which the engine does not use).
go build -tags urfave_cli_no_docs -o "$bin/devrites-engine" ./cmd/devrites-engine
go build -o "$bin/iofloor" ./scripts/iofloor
go run ./scripts/bench -engine "$bin/devrites-engine" -floor "$bin/iofloor" "$@"
