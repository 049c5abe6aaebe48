package app

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/question"
)

// examples are the one example each command's --help shows, by command path.
var examples = map[string]string{
	"init":              "devrites-engine init payments",
	"question":          `devrites-engine question raise --gate blocking --question "Which rounding?" --option "Banker's" --option "Half up"`,
	"question raise":    `devrites-engine question raise --slice "3 — payments" --gate blocking --question "Which rounding?" --option "Banker's — unbiased" --option "Half up"`,
	"state":             "devrites-engine state check",
	"state show":        "devrites-engine state show --json",
	"state check":       "devrites-engine state check --seal",
	"state stop":        `devrites-engine state stop --status blocked --reason "waiting for legal" --resume /rite-build`,
	"state resume":      "devrites-engine state resume",
	"state resolve":     `devrites-engine state resolve q-2026-11-29-001 2    # or: --reject q-2026-11-29-001 "too broad"`,
	"qid":               "devrites-engine qid next",
	"qid next":          "devrites-engine qid next",
	"questions":         "devrites-engine questions list --status all",
	"questions list":    "devrites-engine questions list --status all --json",
	"questions show":    "devrites-engine questions show q-2026-11-29-001",
	"questions overdue": "devrites-engine questions overdue",
	"remind":            "*/5 * * * * cd /path/to/project && devrites-engine remind --quiet",
	"afk":               "devrites-engine afk status",
	"afk status":        "devrites-engine afk status --json",
	"afk explain":       "devrites-engine afk explain --gate validating --tag billing",
	"notify":            "devrites-engine notify test",
	"notify test":       "devrites-engine notify test --event reminder",
	"doctor":            "devrites-engine doctor --fix",
	"help":              "devrites-engine help state resolve",
	"completion":        `source <(devrites-engine completion bash)`,
	"answer":            "devrites-engine answer --by alice",
	"sign":              "devrites-engine sign q-2026-11-29-001",
	"serve":             "devrites-engine serve --root ~/src/payments --root ~/src/ledger",
	"wait":              "devrites-engine wait q-2026-11-29-001 --timeout 10m --json",
	"mcp":               "claude mcp add devrites -- devrites-engine mcp",

	// The recovery ledger and the approval rules.
	"recovery":                 "devrites-engine recovery status",
	"recovery fingerprint":     `devrites-engine recovery fingerprint --command "make test" --exit 2 --stderr-line "FAIL: TestRounding"`,
	"recovery record":          `devrites-engine recovery record 09b7aa18d132 --no-progress --note "retried with a clean cache"`,
	"recovery status":          "devrites-engine recovery status --json",
	"recovery reopen":          "devrites-engine recovery reopen --all",
	"recovery resolver-failed": `devrites-engine recovery resolver-failed --command "devrites-engine state resolve q-2026-11-29-001 1" --exit 5 --stderr-line "devrites-engine: state resolve: …"`,
	"rules":                    "devrites-engine rules list",
	"rules list":               "devrites-engine rules list --json",
	"rules add":                `devrites-engine rules add --tag billing --action never-auto --note "money needs a person"`,
	"rules remove":             "devrites-engine rules remove r-3f2a9c1b",
}

// helpTemplate is a command's CustomHelpTemplate: a mark that printHelp
// turns into the template when the help is shown. Every run wires the fifty
// commands, and only a request for help needs their templates.
func helpTemplate(c *cli.Command, path string) string {
	kind := "command"
	if len(c.Subcommands) > 0 {
		kind = "group"
	}
	return helpMark + kind + " " + path
}

const helpMark = "\x00help "

func init() { cli.HelpPrinter = printHelp }

// printHelp is urfave/cli's help printer, for a template helpTemplate
// marked: a command's help is urfave/cli's own, then the global options
// (which its command help leaves out) and one example.
func printHelp(w io.Writer, templ string, data any) {
	if rest, ok := strings.CutPrefix(templ, helpMark); ok {
		kind, path, _ := strings.Cut(rest, " ")
		templ = cli.CommandHelpTemplate
		if kind == "group" {
			templ = cli.SubcommandHelpTemplate
		}
		templ += "\nGLOBAL OPTIONS (anywhere on the line):\n" + globalsText()
		if ex := examples[path]; ex != "" {
			templ += "\nEXAMPLE:\n   " + ex + "\n"
		}
	}
	cli.HelpPrinterCustom(w, templ, data, nil)
}

// globalsText lists the global flags as urfave/cli lists flags.
func globalsText() string {
	var b strings.Builder
	for _, f := range globalFlags {
		fmt.Fprintf(&b, "   %s\n", f.String())
	}
	return b.String()
}

// helpCommands are help and completion: ways to find one's way.
func helpCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name: "help", Usage: "show the help of the program or of a command",
			ArgsUsage: "[command [subcommand]]",
			Action: func(c *cli.Context) error {
				return c.App.RunContext(c.Context, append(append([]string{c.App.Name}, c.Args().Slice()...), "--help"))
			},
		},
		{
			Name: "completion", Usage: "print a shell completion script: bash, zsh or fish",
			ArgsUsage: "bash|zsh|fish",
			Action:    cmdCompletion,
		},
	}
}

// The bash and zsh scripts ask the program itself for the words that may
// come next, through urfave/cli's --generate-bash-completion.
const (
	bashCompletion = `# devrites-engine completion for bash: source <(devrites-engine completion bash)
_devrites_engine() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local words=("${COMP_WORDS[@]:0:COMP_CWORD}")
  COMPREPLY=($(compgen -W "$("${words[@]}" ${cur:+"$cur"} --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o bashdefault -o default -F _devrites_engine devrites-engine
`
	zshCompletion = `#compdef devrites-engine
# devrites-engine completion for zsh: source <(devrites-engine completion zsh)
_devrites_engine() {
  local -a opts
  opts=("${(@f)$(${words[@]:0:#words[@]-1} ${words[-1]:+${words[-1]}} --generate-bash-completion 2>/dev/null)}")
  _describe 'values' opts
}
compdef _devrites_engine devrites-engine
`
)

func cmdCompletion(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	shells := "one of: bash, zsh, fish"
	if c.NArg() != 1 {
		return mdstore.Errorf(errUsage, "want one shell, got %s", question.Plural(c.NArg(), "argument")).Hint(shells)
	}
	switch c.Args().First() {
	case "bash":
		fmt.Fprint(e.stdout, bashCompletion)
	case "zsh":
		fmt.Fprint(e.stdout, zshCompletion)
	case "fish":
		s, err := c.App.ToFishCompletion()
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, s)
	default:
		return mdstore.Errorf(errUsage, "unknown shell %q", c.Args().First()).Hint(shells)
	}
	return nil
}

// didYouMean is a hint naming the command closest to name (urfave/cli's
// suggestion), or "".
//
// A suggestion is a name or alias a slip away from the word: at most one
// edit (a letter added, dropped, changed, or two swapped) per three
// letters. urfave's own suggester names the closest name however far, so
// that "hook" got the alias "h".
func didYouMean(cmds []*cli.Command, name string) string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	best := mdstore.Closest(strings.ToLower(name), names)
	if best == "" {
		return ""
	}
	return fmt.Sprintf(cli.SuggestDidYouMeanTemplate, best)
}

func init() {
	cli.SuggestDidYouMeanTemplate = "did you mean %q?" // a hint line: lower case, as all hints
}

// flagSuggestion is a hint naming the flag closest to the unknown one in
// msg, among flags, or "".
func flagSuggestion(flags []cli.Flag, msg string) string {
	name, ok := strings.CutPrefix(msg, "unknown flag ")
	if !ok || cli.SuggestFlag == nil {
		return ""
	}
	if s := cli.SuggestFlag(flags, strings.TrimLeft(name, "-"), false); s != "" {
		return "did you mean " + s + "?"
	}
	return ""
}
