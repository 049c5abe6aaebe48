#!/bin/sh
# Notify hook: forward the engine's JSON document, byte for byte, to any
# HTTPS endpoint, signed with HMAC-SHA256 so the receiver can check it came
# from you.
#
#   .devrites/AFK
#     notify: WEBHOOK_URL=https://example.com/devrites sh ./examples/notify/webhook.sh
#     notify_on: [raised, reminder, resolved, dropped, rejected]
#
#   WEBHOOK_URL     where to POST (required)
#   WEBHOOK_SECRET  the shared HMAC key (required), or WEBHOOK_SECRET_FILE:
#                   a file outside the repository that holds it
#
# Headers sent:
#   Content-Type: application/json
#   X-Devrites-Event: the event (raised, reminder, resolved, …)
#   X-Devrites-Signature-256: sha256=<hex HMAC-SHA256 of the exact body>
#
# To verify, compute HMAC-SHA256 of the raw request body with the secret and
# compare it, in constant time, with the hex after "sha256=". The body is the
# document of the notify hook's stdin (it has a "schema" field), ending in a
# newline.
#
# Needs curl and openssl. The secret is on openssl's command line while it
# runs (a few milliseconds): on a host shared with people you do not trust,
# they could read it from the process list.
set -eu
# secret NAME (secret.sh, beside this script): NAME from the environment,
# else from the file NAME_FILE names, outside the repository.
. "$(dirname "$0")/secret.sh"
secret WEBHOOK_SECRET
: "${WEBHOOK_URL:?set WEBHOOK_URL to the endpoint}"
: "${WEBHOOK_SECRET:?set WEBHOOK_SECRET to the shared key}"

body=$(mktemp "${TMPDIR:-/tmp}/devrites-webhook.XXXXXX")
trap 'rm -f "$body"' EXIT
cat > "$body"

sig=$(openssl dgst -sha256 -hmac "$WEBHOOK_SECRET" < "$body" | sed 's/^.*= *//')
event=$(printf '%s' "${DEVRITES_EVENT:-raised}" | LC_ALL=C tr -cd 'a-z')

curl -sS --fail --max-time 20 -H 'Content-Type: application/json' \
	-H "X-Devrites-Event: $event" -H "X-Devrites-Signature-256: sha256=$sig" \
	--data-binary @"$body" "$WEBHOOK_URL"
