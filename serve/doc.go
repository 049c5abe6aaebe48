// Package serve is `devrites-engine serve`: a small HTTP server a person
// starts on their machine to answer questions from a browser, a phone
// included. It serves an inbox of the open questions of every workspace
// (.devrites/work/<slug> and .devrites/features/<slug>) of its projects, and
// a page per question with its option set (engine.Question.Text, as
// questions show prints it) and a form: pick an option, write an answer,
// or reject or drop with words, under a name recorded as answered_by.
//
// Guarantees:
//   - A GET never changes a file: pages are read without the lock, as
//     questions show reads them. Chat unfurlers and link scanners that open
//     a link change nothing. The only file the server writes by itself is
//     each project's key, .devrites/serve.key, when New finds none.
//   - An answer is a POST through engine.Resolve, the transaction of state
//     resolve: the same lock, validation, decision log and notify hook. It
//     needs the capability token of the link (?t=) and the page's CSRF
//     token; a cross-site POST (Sec-Fetch-Site, Origin) is refused before
//     either is read. Every refusal leaves every file as it was.
//   - A question's link is /q/<slug>/<qid>?t=<token>, the token an
//     HMAC-SHA256 of the project, slug and qid (package caplink). A wrong
//     or missing token is 403 and tells nothing about the question; once
//     the question is answered, dropped or rejected its link is 403 too.
//     The inbox has a token of its own (printed when serve starts), kept
//     in an HttpOnly, SameSite=Strict cookie so that question pages can
//     link back to it.
//   - The CSRF token is the time it was issued and an HMAC over it and the
//     question; it is good for 24 hours (csrfTTL), for that question only.
//   - Blank is never approval: blank words go to the engine, which refuses
//     them. An option picked together with words is refused rather than
//     guessed, unless the option is the escape hatch, whose answer is the
//     words.
//   - Refusals keep the engine's kinds, as exit codes do on the command
//     line (statusOf): bad arguments 422 with the decisive line on the
//     form's page and what was typed kept; a form that is not one of ours
//     400; a workspace the engine will not write (malformed, schema,
//     ambiguous qid) and a conflict 409; an unknown question or workspace
//     404; a held lock 503 with Retry-After; anything else 500.
//   - Every response sets Content-Security-Policy (scripts, styles and
//     images from the server only, no inline script, no frames,
//     frame-ancestors 'none'), Referrer-Policy: no-referrer (tokens never
//     leave in a Referer), X-Frame-Options: DENY, X-Content-Type-Options:
//     nosniff and Cache-Control: no-store. Every field is escaped by
//     html/template.
//   - Each client address has a token bucket (DefaultBurst requests at
//     once, DefaultRate a second after that); past it, 429 with
//     Retry-After.
//   - Unless AllowRemote, a request whose Host is not a loopback name or
//     address is refused (421): a site whose name was made to resolve to
//     127.0.0.1 (DNS rebinding) gets nothing. Listen.Check refuses to
//     listen beyond loopback without AllowRemote.
//   - Pages work without JavaScript: the inbox refreshes itself every 30
//     seconds (a meta refresh inside noscript), and a question page has a
//     reload link. With JavaScript (one static file), a server-sent event
//     stream reloads a page when its workspace's files change, and on a
//     question page where the person has started typing it shows a note
//     instead, so that nothing typed is lost.
//
// Limits:
//   - Changes are found by looking at the size, time and inode of each
//     state.md and questions.md every Config.Poll (a second): a change
//     shows within about a second, and a stream costs a few stat calls a
//     second.
//   - The rate limit is per address: behind a proxy, every person is one
//     client; over IPv6, one person may use several addresses.
//   - The server trusts whoever holds a link. A link forwarded is a right
//     forwarded, until the question is final or serve.key is replaced
//     (which ends every link of the project at once).
//   - Resubmitting the form after an answer (a reload of the result page)
//     is refused with 403: the link has ended.
package serve
