package main

import "github.com/urfave/cli/v2"

// afkCommands are the AFK, notify and reminder commands.
func afkCommands() []*cli.Command { return nil }
