package mcp

import (
	"context"
	"crypto/rand"
	"io"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/devrites/devrites-engine/engine"
)

// Options is what the server needs from the program that runs it.
type Options struct {
	// Open finds the workspace and opens its engine, as every command
	// does. It is called at each tool call, so that a changed AFK file,
	// rules file or ACTIVE feature counts at once.
	Open func() (*engine.Engine, error)
	// Describe words err as the command line reports it when command cmd
	// (for example "question raise") fails with it.
	Describe func(cmd string, err error) Failure
	// Version is the program's version, told to clients.
	Version string
}

// Failure is an error as the command line reports it.
type Failure struct {
	Line  string   // the decisive line: "devrites-engine: question raise: unknown gate \"x\""
	Kind  string   // the stable kind: "bad-arguments"
	Code  int      // the exit code the command would have: 7
	Hints []string // what to do about it
}

func (f Failure) Error() string {
	var b strings.Builder
	b.WriteString(f.Line + "\nkind: " + f.Kind + " (exit " + strconv.Itoa(f.Code) + ")")
	for _, h := range f.Hints {
		b.WriteString("\nhint: " + h)
	}
	return b.String()
}

const instructions = `devrites-engine keeps the human-in-the-loop state of this project's DevRites workspace.
At a HITL checkpoint call raise_question. Its outcome says what to do:
auto-picked or answered: go on with the answer; provisional: go on with option 1, a person validates later;
rejected: re-scope with the feedback (next_action); dropped: leave it; paused: stop and either call
wait_for_answer, or ask the person in chat and pass their exact words to relay_answer.
Never answer a question yourself: an empty, dismissed or ambiguous reply is not approval.
Call check before you proceed past a pause, and check with seal before sealing.`

// New returns a server with the tools, acting on the workspace that
// opts.Open finds.
func New(opts Options) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "devrites-engine", Title: "DevRites HITL workspace", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions})
	t := &tools{opts: opts, key: make([]byte, 32)}
	rand.Read(t.key)
	t.add(s)
	return s
}

// Serve runs the server over in and out (stdio: newline-delimited JSON-RPC)
// until the client closes the connection or ctx ends.
func Serve(ctx context.Context, opts Options, in io.ReadCloser, out io.WriteCloser) error {
	return New(opts).Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
}

// tools are the tool handlers, each a call of the engine.
type tools struct {
	opts Options
	key  []byte // signs the request state of a form (multi round-trip requests)
}

// fail is err as the tool error of the command line's cmd.
func (t *tools) fail(cmd string, err error) error {
	return t.opts.Describe(cmd, err)
}
