// Package mdstore finds a DevRites workspace, creates one (Init, init.go:
// all or nothing), parses and edits state.md and questions.md, and runs
// every read-change-write of them under one lock.
//
// Parsing. One line model and one grammar for every file the engine reads
// or merges. A line is cut by one function (cut), for mdstore, the merge
// driver (CutLines) and recovery.md (Lines) alike. A heading is "#" at
// column 0, outside fenced code, on a line that is not a field's value
// (headingLevel), for state.md, questions.md and decisions.md, which is
// read by questions.md's grammar with every level-2 heading an entry. A
// line-level scanner finds question blocks, fields, table rows and
// bullets; goldmark decides, by CommonMark's rules, which lines are inside
// fenced code, and those lines are never read as headings, fields or keys.
// Only ATX headings count ("## Title"); setext underlines do not, so a
// "---" line cannot turn fields into a heading. Values the engine writes
// over several lines are indented four spaces, so that no other markdown
// reader takes one of their lines for a heading, fence or row either.
// In questions.md (and decisions.md) the indented lines that follow a field
// inside a block are its value (a block scalar "key: |", the older "key:" form, or a
// plain value continued as in YAML) and are data: they are hidden from
// goldmark, so a "```" inside an answer cannot open a fence that would
// swallow the questions after it, and only a column-0 heading ends a block.
// Which lines are fenced and which are values depend on each other; both are
// decided from the lines above, and the parser alternates the two until they
// agree.
// A file's byte order mark, and the ending its new lines get, are read by
// one function (Form) for all of these readers too.
//
// Question forms. Besides the engine's "## q-YYYY-MM-DD-NNN" blocks,
// questions.md is read in every form DevRites workspaces use: numbered ids
// ("## Q-012"), a gate word after the id ("## q-3 blocking"), named blocks
// ("## seal-important-accept", a block only when its first fields hold a
// question status, so that "## Notes" stays a section) and the rows of a
// "## Question register" table. See Block. state.md's cursor is a "## Cursor"
// table, bullets before the first "## " heading, or the header-less rows
// DevRites' migrate leaves among those bullets; a row followed by a
// delimiter row is a header, never a key.
//
// Editing. Files are kept as lines with their own endings. Edits replace
// whole lines or a value's span within a line (a register row's cells are
// edited in place, and a value a cell cannot hold is refused); everything
// else keeps its bytes: a UTF-8 BOM, CRLF endings, blank lines, a missing final newline.
// Parsing a file and writing it back unchanged gives identical bytes.
// A questions.md without fenced code is not even split into lines when it
// is read: its column-0 headings are found in the text, a block's fields
// are read from the block's text, and an edit splits only the block it
// changes (or, for an append, the last block); the text before and after
// is written out as it was read. Whatever needs more lines splits the
// whole file first, so the result is the same either way, which a fuzz
// test of the two readings checks.
// Text added at a place where a fenced code block is still open (a "```"
// never closed before the end of the file) is preceded by a closing fence,
// or it would be read as code.
//
// Transactions. Transact takes an exclusive lock on .lock (a file that is
// never deleted: the data files are replaced by rename, so a lock on them
// would guard nothing), reads each file whole into memory, lets the
// caller change what it read, reads each file about to be written again
// and compares it byte for byte with what was read, starting again if a
// writer that ignores the lock changed it, then writes every changed file
// to a temporary file beside it and renames them over questions.md,
// state.md and decisions.md in that order. A failure before the first
// rename (a full disk) changes nothing. The unedited stretches of
// questions.md and state.md are written from the bytes read: each line
// knows where it was in them, and an edit makes a line that does not.
//
// Systems. What each system promises, and what it does not:
//   - Linux, macOS, the BSDs (unix): a temporary file, fsync, rename(2)
//     and an fsync of the directory (google/renameio); a reader sees the
//     old file or the new one, never a mix. Locks are flock(2)
//     (gofrs/flock). Files the engine reads or appends to besides its
//     own writes (OpenRegular) are opened with O_NOFOLLOW and O_NONBLOCK:
//     a symbolic link is refused, never followed, and a named pipe never
//     blocks the command. Only Linux says which process holds a lock
//     (/proc/locks); elsewhere the busy error says "another process".
//   - Windows: a temporary file, FlushFileBuffers, then os.Rename, which
//     is MoveFileEx with MOVEFILE_REPLACE_EXISTING: NTFS replaces the file
//     whole, which Microsoft documents but does not call atomic, and a
//     directory cannot be synced. A rename fails while another program
//     holds the file open without sharing it for deletion (some editors);
//     the command then fails and its earlier renames stand, as after a
//     crash between two files. Locks are LockFileEx (gofrs/flock). There is
//     no O_NOFOLLOW: OpenRegular refuses a link found by an lstat before
//     the open, and one put there between the two is followed. Named pipes
//     live outside the file system (\\.\pipe\), so an open cannot block
//     on one.
//
// Limits. Atomic replacement relies on rename being atomic, which holds on
// local file systems but not on NFS with several clients. Between the
// re-read and the rename there is still a window of microseconds in which
// an editor that ignores the lock can lose its change. A crash between two
// files of a transaction leaves the later ones as they were; re-running the
// command or `doctor --fix` completes it.
package mdstore
