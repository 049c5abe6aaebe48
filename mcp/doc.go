// Package mcp serves a workspace to agents over the Model Context Protocol:
// the tools raise_question, get_state, list_questions, get_question,
// check, wait_for_answer and relay_answer, on the official Go SDK, over
// stdio (Serve) or Streamable HTTP on loopback (ServeHTTP).
//
// Guarantees:
//   - Every tool runs the engine's own transaction, the one the command line
//     runs (engine.Raise, engine.Resolve, …): the same validation, the same
//     lock, the same files. Nothing is shelled out.
//   - Arguments are checked against the tool's input schema, then by the
//     engine; arguments either refuses write nothing.
//   - A failure is a tool error (isError) whose first line is the command
//     line's decisive line (devrites-engine: question raise: …), followed by
//     its kind, exit code and hints. A failure never stops the server.
//   - No approval is inferred. raise_question asks the person through the
//     client's form (elicitation/create) only when the AFK policy left the
//     question paused and the client declared the capability. An accepted
//     form with an option or words resolves the question in place
//     (answered_via: elicitation); reject or drop needs a reason; decline is
//     a rejection that says so. A cancelled, empty or failed form, and any
//     answer the engine refuses, leave the question open and the pause
//     held: outcome paused, with the resume command.
//   - relay_answer records answered_via: agent, so that words an agent
//     relayed are never taken for words a person entered; a question that
//     needs a person (engine.NeedsPerson) is refused with a tool error. It
//     is marked destructiveHint (and not openWorldHint), so that a client
//     that honours the hints asks the person before each call; one that
//     does not is held by the hooks (package hook), which refuse it.
//   - Over HTTP: loopback addresses only; every request must carry the
//     bearer token made at start (401 otherwise), a Host header naming a
//     loopback address (403), and no Origin other than the server's own
//     (403). A refused request reaches no tool.
//
// Limits:
//   - The workspace is found again at each call, from the flags, the
//     environment and the directory the server started in.
//   - The notify hook of a question the form is about to ask fires only if
//     the question still waits once the form has ended (so the person is not
//     paged about a question on their screen); a server killed during the
//     form fires none.
//   - wait_for_answer wakes within milliseconds of the write on a local
//     file system (engine.Wait), within a second where directory watches do
//     not work.
package mcp
