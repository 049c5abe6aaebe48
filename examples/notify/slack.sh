#!/bin/sh
# Notify hook: post a DevRites question to a Slack channel through an
# incoming webhook.
#
#   .devrites/AFK
#     notify: sh ./examples/notify/slack.sh
#     notify_on: [raised, reminder, resolved]
#
#   SLACK_WEBHOOK_URL  the incoming webhook URL (required; it is a secret),
#                      or SLACK_WEBHOOK_URL_FILE: a file outside the
#                      repository that holds it
#
# The payload is built with printf and a JSON string encoder in awk (no jq):
# every text is escaped for JSON, and &, < and > are escaped for Slack, so a
# question cannot mention @channel or forge a link. The URL reaches curl
# through a config on a file descriptor, not its arguments, so it does not
# show in the process list.
#
# With serve_url set (devrites-engine serve), an open question's message ends
# with a link to its answer page (DEVRITES_ANSWER_URL). That link answers the
# question: post it only to a channel of people who may answer.
set -eu
# secret NAME (secret.sh, beside this script): NAME from the environment,
# else from the file NAME_FILE names, outside the repository.
. "$(dirname "$0")/secret.sh"
secret SLACK_WEBHOOK_URL
: "${SLACK_WEBHOOK_URL:?set SLACK_WEBHOOK_URL to the incoming webhook URL}"

# json TEXT: TEXT as a JSON string literal, with Slack's &, < and > escaped.
# It works on bytes in the C locale, so UTF-8 passes through unchanged.
json() {
	printf '%s' "$1" | LC_ALL=C awk '
	BEGIN {
		for (i = 1; i < 32; i++) esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
		esc["\n"] = "\\n"; esc["\t"] = "\\t"; esc["\""] = "\\\""; esc["\\"] = "\\\\"
		esc["&"] = "&amp;"; esc["<"] = "&lt;"; esc[">"] = "&gt;"
	}
	{ text = (NR > 1) ? text "\n" $0 : $0 }
	END {
		out = ""
		for (i = 1; i <= length(text); i++) { c = substr(text, i, 1); out = out ((c in esc) ? esc[c] : c) }
		printf "\"%s\"", out
	}'
}
conf() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

event=${DEVRITES_EVENT:-raised}
case "$event" in
reminder) head="Reminder: still waiting for an answer" ;;
resolved) head="Answered" ;;
dropped) head="Dropped" ;;
rejected) head="Rejected" ;;
test) head="Test of the notify hook" ;;
*) head="A human decision is needed" ;;
esac
text=$(printf '*%s* — %s `%s` (%s, SLA %s)\nSlice: %s\n>%s\nProposed: %s' \
	"$head" "${DEVRITES_SLUG:-}" "${DEVRITES_QID:-}" "${DEVRITES_GATE:-}" "${DEVRITES_SLA:-none}" \
	"${DEVRITES_SLICE:-}" "${DEVRITES_QUESTION:-}" "${DEVRITES_PROPOSED:-}")
case "$event" in
resolved | dropped | rejected) ;;
*) text=$(printf '%s\nAnswer with: `%s`' "$text" "${DEVRITES_RESUME:-}") ;;
esac

body=$(json "$text")
# The answer link, for a question still open, when it has only characters
# that a Slack link carries as they are; added after the escaping, since its
# < and > are Slack's link syntax.
case "$event" in
resolved | dropped | rejected) ;;
*) case "${DEVRITES_ANSWER_URL:-}" in
	http://* | https://*) case "$DEVRITES_ANSWER_URL" in
		*[!A-Za-z0-9:/?=._~%+-]*) ;;
		*) body="${body%\"}\\n<${DEVRITES_ANSWER_URL}|Answer in the browser>\"" ;;
		esac ;;
	esac ;;
esac

printf '{"text":%s}' "$body" |
	curl -sS --fail --max-time 20 --config /dev/fd/3 \
		-H 'Content-Type: application/json' --data-binary @- 3<<CONFIG
url = $(conf "$SLACK_WEBHOOK_URL")
CONFIG
