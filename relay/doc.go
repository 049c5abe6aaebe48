// Package relay sends each pause of a project's workspaces to chat
// services (ntfy, Telegram, Slack) with a button per option and one to
// reject, and records the answer a person taps, through the transaction of
// `state resolve` (engine.Resolve).
//
// Each service is a Channel (one file each: ntfy.go, telegram.go,
// slack.go). The relay opens every connection itself: it publishes, and it
// subscribes or long-polls for the taps; nothing listens on a port.
//
// Guarantees:
//   - A tap answers only with a valid tap token: an HMAC under the
//     project's key (caplink, .devrites/serve.key) of the slug, the qid, the
//     choice and an expiry. A forged or altered token, an expired one, one
//     for a question already final, or a tap from a sender the channel's
//     allow-list does not name is refused, written to the log and, where
//     the service can show it, told to the person who tapped.
//   - The first valid tap wins: taps are answered one at a time through
//     engine.Resolve, under the workspace lock; a later tap finds the
//     question final and is refused. Every copy of the message on every
//     channel is then updated to say who answered what — also when the
//     answer came from somewhere else (a terminal, serve, expiry).
//   - Every message sent is recorded in the workspace's relay.json
//     (gitignored) before the next is sent, so a restarted relay does not
//     send a question twice. A crash between a send and its record sends
//     that one message again.
//   - Channels do not wait for one another: each sends from its own
//     goroutine, and one that fails is retried with a growing delay (up to
//     a minute) and a warning in the log.
//
// Limits: one relay per project and bot (Telegram allows one long poll
// per bot; Slack spreads a Socket Mode app's events over its
// connections). ntfy has no sender identity: whoever may publish to the
// reply topic and holds a token from a notification may answer, as
// "ntfy"; protect both topics with access control.
package relay
