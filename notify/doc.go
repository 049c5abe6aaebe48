// Package notify runs the user's notify hook: a shell command from
// .devrites/AFK that pings a person (chat, pager) when a question needs them.
//
// Guarantees:
//   - Text reaches the hook only as data: through environment variables and a
//     JSON document on its stdin (one line, with a "schema" field), never by
//     interpolation into the command. Variables of the same name inherited
//     from the engine's environment are replaced, not duplicated.
//   - The hook runs with `sh -c` from the project directory in its own process
//     group. At the timeout the whole group is killed, so a hook that hangs,
//     or leaves a child behind, cannot hold the engine. When the hook exits,
//     whatever it left running in its group is killed too: nothing it starts
//     outlives Fire. A child that still holds the hook's output is waited
//     for at most one second.
//   - Its stdout and stderr never reach the engine's stdout. They are kept,
//     cut to MaxOutput bytes, in notify.log with the time, event, qid, exit
//     status and duration of the run.
//   - notify.log is opened without following a symbolic link and without
//     waiting (mdstore.OpenRegular, whose doc says how each system does it),
//     and written only when what was opened is a regular file: a link to a
//     file elsewhere, a named pipe or a device there is left alone, and
//     Outcome.LogErr says so.
//   - Fire never returns an error that should fail the caller: the hook is
//     best effort, and the outcome says what happened for a warning.
//
// Limits: a process that leaves the hook's group on purpose (setsid, a
// daemon) is not killed. Windows has no process groups: there only the
// hook's own process is killed, and the hook runs through sh, which Git for
// Windows provides. notify.log is appended to with O_APPEND, one write
// per run, and is rotated to notify.log.1 past MaxLog bytes; two engines
// rotating at the same moment may lose an entry.
package notify
