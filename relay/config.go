package relay

import (
	"fmt"
	"net/http"
	"time"

	"github.com/devrites/devrites-engine/config"
)

// Channels makes the channels of the notify configuration's channels:
// entries, with their secrets from the environment (getenv). An entry
// whose secret is not set is left out, with a warning naming the
// variable.
func Channels(cfgs []config.Channel, getenv func(string) string) ([]Channel, []string) {
	var out []Channel
	var warn []string
	client := &http.Client{Timeout: 30 * time.Second}
	secret := func(c config.Channel, env string) (string, bool) {
		if env == "" {
			return "", true
		}
		v := getenv(env)
		if v == "" {
			warn = append(warn, fmt.Sprintf("%s (line %d): $%s is not set: the channel is left out", c.Name(), c.Line, env))
		}
		return v, v != ""
	}
	for _, c := range cfgs {
		switch c.Type {
		case "ntfy":
			token, ok := secret(c, c.TokenEnv)
			if ok {
				out = append(out, &Ntfy{Server: c.Server, Topic: c.Topic, ReplyTopic: c.ReplyTopic, Token: token, Client: client})
			}
		case "telegram":
			if token, ok := secret(c, c.TokenEnv); ok {
				out = append(out, &Telegram{API: c.API, Token: token, ChatID: c.ChatID, Allow: c.Allow, Client: client})
			}
		case "slack":
			bot, ok1 := secret(c, c.BotTokenEnv)
			app, ok2 := secret(c, c.AppTokenEnv)
			if ok1 && ok2 {
				out = append(out, &Slack{API: c.API, BotToken: bot, AppToken: app, Channel: c.Channel, Allow: c.Allow, Client: client})
			}
		}
	}
	return out, warn
}
