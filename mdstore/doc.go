// Package mdstore finds a DevRites workspace, parses and edits state.md and
// questions.md, and runs every read-change-write of them under one lock.
//
// Parsing. One parser per file. A line-level scanner finds question blocks,
// fields, table rows and bullets; goldmark decides, by CommonMark's rules,
// which lines are inside fenced code, and those lines are never read as
// headings, fields or keys. Only ATX headings count ("## Title"); setext
// underlines do not, so a "---" line cannot turn fields into a heading.
// In questions.md the indented lines that follow a field inside a question
// block are its value (a block scalar "key: |", the older "key:" form, or a
// plain value continued as in YAML) and are data: they are hidden from
// goldmark, so a "```" inside an answer cannot open a fence that would
// swallow the questions after it, and only a column-0 heading ends a block.
// Which lines are fenced and which are values depend on each other; both are
// decided from the lines above, and the parser alternates the two until they
// agree.
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
// Transactions. Workspace.Transact takes an exclusive flock on .lock (a file
// that is never deleted: the data files are replaced by rename, so a lock on
// them would guard nothing), reads, lets the caller change, checks each file
// about to be written and starts again if a writer that ignores the lock
// changed it, then writes questions.md, state.md and decisions.md in that
// order, each atomically: by rename, or, for a decisions.md entry that fits
// in the page where the file ends, by one appending write(2) and fsync,
// which no kill can tear. Where the file system gives every write after a
// stat a change time of its own (Linux 6.13 and later on ext4, xfs, btrfs
// and tmpfs), the check is one lstat: a file whose device, inode, size,
// modification and change times are those of the read is taken as
// unchanged. Elsewhere, and whenever those differ, the file is read again
// and compared byte for byte.
//
// Mapped reads. A transaction of a Workspace marked Mapped (the command
// line marks the workspaces of its commands, unless a person is at the
// terminal) maps each file of 64 KiB or more into memory instead of
// copying it, where change times are fine-grained: the pages come from the
// page cache as they are read, with no copy and no fresh memory for it,
// which is most of what reading a file costs. The mapping is private, and
// the rest of its last page is spare room: a decision appended to
// decisions.md is made there, without a copy of the file. A mapped file
// shows what is
// on disk now, so a write in place by another program cannot be found by
// comparing bytes; its change time finds it, before the commit and again
// once the new content is in its temporary files, and the transaction then
// runs again. A file cut short in place faults when the pages past its new
// end are read (and makes a write(2) from them fail with EFAULT): Catch, in
// every command, and Go, in every goroutine that reads the files, make that
// an error of kind ErrBusy naming the file, and no temporary file is left. A
// mapping lasts as long as the process, so a long-running one (serve)
// copies.
//
// Limits. Atomic replacement relies on rename(2) being atomic, which holds on
// local file systems but not on NFS with several clients. Between the re-read
// and the rename there is still a window of microseconds in which an editor
// that ignores the lock can lose its change. An append to decisions.md is
// as durable as its fsync: a power cut before the fsync ends, on a file
// system that writes data after metadata (ext4 with data=writeback), can
// leave zeros where the entry was going, which doctor reports as binary
// content. A crash between two files of a transaction leaves the later ones
// as they were; re-running the command or `doctor --fix` completes it.
package mdstore
