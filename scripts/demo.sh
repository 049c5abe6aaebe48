#!/usr/bin/env bash
# Builds devrites-engine into ./bin and walks through the HITL loop on a
# scratch workspace: init, raise (pause), list, show, resolve by option, a
# reject that loops back into re-scoping, and a batch.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "building ./bin/devrites-engine (the first build fetches and compiles the dependencies: a minute or so)…"
go build -buildvcs=auto -tags urfave_cli_no_docs -o bin/ ./cmd/devrites-engine
export PATH="$PWD/bin:$PATH"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"

# step prints a command as a person would type it, then runs it.
step() {
  printf '\n$'
  for a in "$@"; do
    case $a in
      *[!A-Za-z0-9_./:=-]*|'') printf " '%s'" "${a//\'/\'\\\'\'}" ;;
      *) printf ' %s' "$a" ;;
    esac
  done
  printf '\n'
  "$@" || echo "(exit $?)"
}

step devrites-engine init payments
q1=$(devrites-engine qid next)
step devrites-engine question raise --slice "3 — payments" --gate blocking \
  --question "Which currency rounding rule?" \
  --option "Banker's rounding — logic: unbiased · business: matches ledger" \
  --option "Round half up — simpler, biased upward on .5"
step devrites-engine questions list
step devrites-engine questions show "$q1"
step devrites-engine state resolve "$q1" 1

q2=$(devrites-engine qid next)
step devrites-engine question raise --slice "4 — refunds" --gate blocking \
  --question "Refund scope: full or partial?" --option "Full refunds only" --option "Partial refunds too"
step devrites-engine state resolve --reject "$q2" "partial refunds are a separate feature; keep this slice to full refunds"
q3=$(devrites-engine qid next)
step devrites-engine question raise --slice "4 — refunds" --gate blocking \
  --question "Re-scoped: full refunds only, partial later?" --option "Yes"
step devrites-engine questions show "$q3" --json
printf '# answers\n%s: 1\n' "$q3" > answers.txt
step devrites-engine state resolve --batch answers.txt
step devrites-engine questions list --status all
step devrites-engine state show
for f in questions.md state.md decisions.md; do
  printf '\n--- .devrites/work/payments/%s ---\n' "$f"
  cat ".devrites/work/payments/$f"
done
