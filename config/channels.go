package config

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Channel is one entry of channels: in the notify configuration, a chat
// service `devrites-engine relay` sends each pause to and takes the answer
// back from. Secrets are never in the file: the *_env keys name the
// environment variables that hold them.
type Channel struct {
	Type string `yaml:"type" json:"type"` // ntfy, telegram or slack
	// ntfy
	Server     string `yaml:"server" json:"server,omitempty"`
	Topic      string `yaml:"topic" json:"topic,omitempty"`
	ReplyTopic string `yaml:"reply_topic" json:"reply_topic,omitempty"`
	// ntfy's and Telegram's token
	TokenEnv string `yaml:"token_env" json:"token_env,omitempty"`
	// Telegram and Slack
	API    string   `yaml:"api" json:"api,omitempty"`
	ChatID string   `yaml:"chat_id" json:"chat_id,omitempty"`
	Allow  []string `yaml:"allow" json:"allow,omitempty"`
	// Slack
	BotTokenEnv string `yaml:"bot_token_env" json:"bot_token_env,omitempty"`
	AppTokenEnv string `yaml:"app_token_env" json:"app_token_env,omitempty"`
	Channel     string `yaml:"channel" json:"channel,omitempty"`

	Line int `yaml:"-" json:"line"` // where the entry starts in the file
}

// Name is how messages name the channel: its type and what it reaches.
func (c Channel) Name() string {
	switch c.Type {
	case "ntfy":
		return "ntfy " + c.Topic
	case "telegram":
		return "telegram " + c.ChatID
	case "slack":
		return "slack " + c.Channel
	}
	return c.Type
}

// channelKeys are the keys each type of channel reads; required ones first.
var channelKeys = map[string][]string{
	"ntfy":     {"server", "topic", "reply_topic", "token_env"},
	"telegram": {"token_env", "chat_id", "allow", "api"},
	"slack":    {"bot_token_env", "app_token_env", "channel", "allow", "api"},
}

var channelRequired = map[string][]string{
	"ntfy":     {"server", "topic"},
	"telegram": {"token_env", "chat_id", "allow"},
	"slack":    {"bot_token_env", "app_token_env", "channel", "allow"},
}

// readChannels reads the channels: list. A bad entry is ignored with a
// warning naming its line; the others stay.
func readChannels(path string, v *yaml.Node) ([]Channel, []string) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, []string{fmt.Sprintf("%s:%d: channels: want a list of channels, each with a type (ignored)", path, v.Line)}
	}
	var out []Channel
	var warn []string
	for _, n := range v.Content {
		at := fmt.Sprintf("%s:%d: channels", path, n.Line)
		var c Channel
		if n.Kind != yaml.MappingNode || n.Decode(&c) != nil {
			warn = append(warn, at+": want type: ntfy, telegram or slack and its keys (ignored)")
			continue
		}
		known, ok := channelKeys[c.Type]
		if !ok {
			warn = append(warn, fmt.Sprintf("%s: unknown type %q (ignored; types are ntfy, telegram, slack)", at, c.Type))
			continue
		}
		set := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			set[k] = strings.TrimSpace(n.Content[i+1].Value) != "" || len(n.Content[i+1].Content) > 0
			if k != "type" && !slices.Contains(known, k) {
				warn = append(warn, fmt.Sprintf("%s:%d: channels: %s does not read %s (ignored)", path, n.Content[i].Line, c.Type, k))
			}
		}
		var missing []string
		for _, k := range channelRequired[c.Type] {
			if !set[k] {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			warn = append(warn, fmt.Sprintf("%s: %s needs %s (ignored)", at, c.Type, strings.Join(missing, ", ")))
			continue
		}
		if c.Type == "ntfy" && c.ReplyTopic == "" {
			c.ReplyTopic = c.Topic + "-replies"
		}
		if c.API == "" {
			c.API = map[string]string{"telegram": "https://api.telegram.org", "slack": "https://slack.com/api"}[c.Type]
		}
		c.Line = n.Line
		out = append(out, c)
	}
	return out, warn
}
