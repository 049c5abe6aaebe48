package app

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devrites/devrites-engine/caplink"
	"github.com/devrites/devrites-engine/config"
	"github.com/devrites/devrites-engine/engine"
	"github.com/devrites/devrites-engine/mdstore"
	"github.com/devrites/devrites-engine/relay"
)

// relayCommands is `relay`: the pauses to chat, the taps back (package relay).
func relayCommands() []*cli.Command {
	return []*cli.Command{{
		Name:  "relay",
		Usage: "send each pause to the channels of .devrites/notify.yaml (ntfy, Telegram, Slack) and record the answer tapped there",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "once", Usage: "one pass: send what is due, update what is final, apply on_overdue, and exit"},
		},
		Action: cmdRelay,
	}}
}

func cmdRelay(c *cli.Context) error {
	e, err := envOf(c)
	if err != nil {
		return err
	}
	devrites, err := mdstore.DevritesDir(e.locator())
	if err != nil {
		return err
	}
	hook := config.LoadHook(devrites, config.LoadAFK(devrites))
	e.warn(hook.Warnings)
	path := filepath.Join(devrites, "notify.yaml")
	switch {
	case hook.Path == "" || len(hook.Channels) == 0:
		return mdstore.Errorf(mdstore.ErrMissing, "%s: no channels to relay to", path).
			Hint("add channels: (ntfy, telegram, slack), as docs/relay.md shows")
	case hook.Broken:
		return mdstore.Errorf(engine.ErrMalformed, "%s does not parse", hook.Path).Hint("devrites-engine doctor names the line")
	case hook.Untrusted != "":
		// It sends the workspaces' questions to a server: only once a
		// person on this machine has trusted what it says.
		return mdstore.Errorf(engine.ErrUntrusted, "%s is %s on this machine, so nothing is sent to its channels", hook.Path, hook.Untrusted).
			Hint(config.TrustHint)
	}
	chans, warnings := relay.Channels(hook.Channels, os.Getenv)
	e.warn(warnings)
	if len(chans) == 0 {
		return mdstore.Errorf(mdstore.ErrMissing, "%s: no channel has its secret set", hook.Path).
			Hint("set the variables that token_env, bot_token_env and app_token_env name")
	}
	key, err := caplink.Ensure(devrites)
	if err != nil {
		return err
	}
	r := relay.New(relay.Config{Devrites: devrites, Channels: chans, Key: key, Now: e.now, Log: e.stderr,
		Open: func(ws *mdstore.Workspace) (*engine.Engine, error) {
			return engine.Open(ws, e.now, c.Duration("lock-timeout"), os.Getenv("DEVRITES_ACTOR"))
		}})
	e.flushWarnings() // before the log: the relay runs until stopped
	if c.Bool("once") {
		r.Once(e.ctx)
		return nil
	}
	names := make([]string, len(chans))
	for i, ch := range chans {
		names[i] = ch.Name()
	}
	e.print(map[string]any{"project": filepath.Dir(devrites), "channels": names},
		"relaying the pauses of "+filepath.Dir(devrites)+" to "+strings.Join(names, ", ")+"\n")
	ctx, stop := signal.NotifyContext(e.ctx, stopSignals...)
	defer stop()
	r.Run(ctx)
	return nil
}
