// Command devrites-engine owns the mutable state of a DevRites markdown
// workspace: it raises and resolves HITL questions, keeps state.md in step,
// and pings a person through the notify hook. The commands, `serve`
// included, live in cmd/internal/app.
package main

import (
	"github.com/devrites/devrites-engine/cmd/internal/app"
)

func main() {
	app.Main()
}
