#!/bin/sh
# Notify hook: page through PagerDuty Events API v2. A raised question (or a
# reminder) triggers an incident whose dedup_key is the qid, so reminders do
# not open new incidents; an answer, a drop or a reject resolves it.
#
#   .devrites/AFK
#     notify: sh ./examples/notify/pagerduty.sh
#     notify_on: [raised, reminder, resolved, dropped, rejected]
#
#   PAGERDUTY_ROUTING_KEY  the integration's routing key (required), or
#                          PAGERDUTY_ROUTING_KEY_FILE: a file outside the
#                          repository that holds it
#   PAGERDUTY_EVENTS_URL   default https://events.pagerduty.com/v2/enqueue
#
# The payload is built with printf and a JSON string encoder in awk (no jq);
# the routing key travels in the body, on curl's stdin, never in arguments.
set -eu
# secret NAME (secret.sh, beside this script): NAME from the environment,
# else from the file NAME_FILE names, outside the repository.
. "$(dirname "$0")/secret.sh"
secret PAGERDUTY_ROUTING_KEY
: "${PAGERDUTY_ROUTING_KEY:?set PAGERDUTY_ROUTING_KEY to the Events API v2 routing key}"
url=${PAGERDUTY_EVENTS_URL:-https://events.pagerduty.com/v2/enqueue}

# json TEXT [MAX]: TEXT as a JSON string literal, cut to MAX bytes when MAX
# is given, without splitting a UTF-8 character. It works on bytes in the C
# locale, so any awk will do.
json() {
	printf '%s' "$1" | LC_ALL=C awk -v max="${2:-0}" '
	BEGIN {
		for (i = 1; i < 32; i++) esc[sprintf("%c", i)] = sprintf("\\u%04x", i)
		esc["\n"] = "\\n"; esc["\t"] = "\\t"; esc["\""] = "\\\""; esc["\\"] = "\\\\"
		for (i = 128; i < 192; i++) tail[sprintf("%c", i)] = 1
		for (i = 192; i < 256; i++) lead[sprintf("%c", i)] = 1
	}
	{ text = (NR > 1) ? text "\n" $0 : $0 }
	END {
		if (max > 0 && length(text) > max) {
			text = substr(text, 1, max)
			while (length(text) > 0 && (substr(text, length(text), 1) in tail)) text = substr(text, 1, length(text) - 1)
			if (length(text) > 0 && (substr(text, length(text), 1) in lead)) text = substr(text, 1, length(text) - 1)
		}
		out = ""
		for (i = 1; i <= length(text); i++) { c = substr(text, i, 1); out = out ((c in esc) ? esc[c] : c) }
		printf "\"%s\"", out
	}'
}

case "${DEVRITES_EVENT:-raised}" in
resolved | dropped | rejected) action=resolve ;;
*) action=trigger ;;
esac

if [ "$action" = resolve ]; then
	body=$(printf '{"routing_key":%s,"event_action":"resolve","dedup_key":%s}' \
		"$(json "$PAGERDUTY_ROUTING_KEY")" "$(json "${DEVRITES_QID:-}")")
else
	case "${DEVRITES_GATE:-}" in
	escalating) severity=critical ;;
	blocking) severity=error ;;
	validating) severity=warning ;;
	*) severity=info ;;
	esac
	summary="DevRites ${DEVRITES_SLUG:-} ${DEVRITES_QID:-} (${DEVRITES_GATE:-}, SLA ${DEVRITES_SLA:-none}): ${DEVRITES_QUESTION:-}"
	body=$(printf '{"routing_key":%s,"event_action":"trigger","dedup_key":%s,"payload":{"summary":%s,"source":%s,"severity":"%s","component":%s,"group":"devrites","class":%s,"custom_details":{"event":%s,"question":%s,"proposed":%s,"slice":%s,"sla":%s,"raised_at":%s,"resolve":%s,"workspace":%s}}}' \
		"$(json "$PAGERDUTY_ROUTING_KEY")" "$(json "${DEVRITES_QID:-}")" "$(json "$summary" 1000)" \
		"$(json "devrites/${DEVRITES_SLUG:-}")" "$severity" "$(json "${DEVRITES_SLICE:-}")" "$(json "${DEVRITES_GATE:-}")" \
		"$(json "${DEVRITES_EVENT:-raised}")" "$(json "${DEVRITES_QUESTION:-}")" "$(json "${DEVRITES_PROPOSED:-}")" \
		"$(json "${DEVRITES_SLICE:-}")" "$(json "${DEVRITES_SLA:-}")" "$(json "${DEVRITES_RAISED_AT:-}")" \
		"$(json "${DEVRITES_RESUME:-}")" "$(json "${DEVRITES_WORKSPACE:-}")")
fi

printf '%s' "$body" | curl -sS --fail --max-time 20 -H 'Content-Type: application/json' --data-binary @- "$url"
