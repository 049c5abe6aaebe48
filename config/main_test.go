package config

import (
	"os"
	"testing"

	"github.com/devrites/devrites-engine/internal/testhome"
)

// TestMain keeps the tests off the person's trust store and config.
func TestMain(m *testing.M) { os.Exit(testhome.Run(m.Run)) }
