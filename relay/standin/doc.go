// Package standin holds local stand-ins of the chat services the relay
// speaks to — an ntfy server, the Telegram Bot API, Slack's Web API and
// Socket Mode — written from each service's documented contract, for
// tests. Each listens on 127.0.0.1 only, keeps what it was sent, and
// plays the person: it presses a button of a message it holds, as the
// service would deliver the press. Every wait is bounded.
//
// Down makes a stand-in answer 503 to everything (a dead service); Delay
// makes it wait before each answer (a slow one).
package standin
