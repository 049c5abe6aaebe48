package main

import "github.com/urfave/cli/v2"

// doctorCommands are the workspace health commands.
func doctorCommands() []*cli.Command { return nil }
