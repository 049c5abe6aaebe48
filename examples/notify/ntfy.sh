#!/bin/sh
# Notify hook: post a DevRites question to an ntfy topic (ntfy.sh or your own
# server), with a priority from the gate.
#
#   .devrites/AFK
#     notify: sh ./examples/notify/ntfy.sh
#     notify_on: [raised, reminder]
#
#   NTFY_URL    the topic URL (required; on a public server the topic name
#               is a secret)
#   NTFY_TOKEN  an access token for a protected topic (optional)
#
# Each may instead be read from a file outside the repository:
# NTFY_URL_FILE, NTFY_TOKEN_FILE (its first line).
#
# With serve_url set (devrites-engine serve), an open question's message gets
# an "Answer" button that opens its answer page (DEVRITES_ANSWER_URL). That
# link answers the question: send it only to a topic you trust.
#
# Question text is data: it goes into the message body through printf and
# --data-binary, never into a command. Header values are cut down to plain
# characters. The URL and token reach curl through a config on a file
# descriptor, not its arguments, so they do not show in the process list.
set -eu
# secret NAME (secret.sh, beside this script): NAME from the environment,
# else from the file NAME_FILE names, outside the repository.
. "$(dirname "$0")/secret.sh"
secret NTFY_URL
secret NTFY_TOKEN
: "${NTFY_URL:?set NTFY_URL to the topic URL, e.g. https://ntfy.sh/my-devrites-topic}"

# plain TEXT: TEXT without line breaks or characters a header cannot carry.
plain() { printf '%s' "$1" | LC_ALL=C tr -cd 'A-Za-z0-9 ,._:()#/-' | cut -c1-200; }
# conf TEXT: TEXT quoted for a curl config file.
conf() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

event=${DEVRITES_EVENT:-raised}
case "${DEVRITES_GATE:-}" in
escalating) priority=urgent ;;
blocking) priority=high ;;
*) priority=default ;;
esac
case "$event" in
reminder) tags=alarm_clock ;;
resolved | dropped | rejected) tags=white_check_mark priority=low ;;
*) tags=raising_hand ;;
esac
title=$(plain "DevRites ${DEVRITES_SLUG:-}: ${DEVRITES_QID:-} ${event} (${DEVRITES_GATE:-}, SLA ${DEVRITES_SLA:-none})")
# The answer link, for a question still open, when it has only characters
# that ntfy's action syntax and a header carry as they are.
answer=
case "$event" in
resolved | dropped | rejected) ;;
*) case "${DEVRITES_ANSWER_URL:-}" in
	http://* | https://*) case "$DEVRITES_ANSWER_URL" in *[!A-Za-z0-9:/?=._~%+-]*) ;; *) answer=$DEVRITES_ANSWER_URL ;; esac ;;
	esac ;;
esac

{
	printf '%s\n' "${DEVRITES_QUESTION:-}"
	printf '\nSlice: %s\nProposed: %s\n' "${DEVRITES_SLICE:-}" "${DEVRITES_PROPOSED:-}"
	case "$event" in
	resolved | dropped | rejected) ;;
	*) printf 'Answer: %s\n' "${DEVRITES_RESUME:-}" ;;
	esac
} | curl -sS --fail --max-time 20 --config /dev/fd/3 \
	-H "Title: $title" -H "Priority: $priority" -H "Tags: $tags" \
	--data-binary @- 3<<CONFIG
url = $(conf "$NTFY_URL")
$(if [ -n "${NTFY_TOKEN:-}" ]; then printf 'header = %s\n' "$(conf "Authorization: Bearer $NTFY_TOKEN")"; fi)
$(if [ -n "$answer" ]; then printf 'header = %s\n' "$(conf "Actions: view, Answer, $answer")"; fi)
CONFIG
