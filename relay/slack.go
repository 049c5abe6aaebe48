package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Slack posts with the bot token (chat.postMessage with Block Kit
// buttons, chat.update for the copies) and takes the taps over Socket
// Mode with the app token: apps.connections.open gives a WebSocket URL,
// whose block_actions envelopes are acknowledged by envelope_id. The
// person who tapped is told the outcome through the action's
// response_url, as a message only they see.
type Slack struct {
	API, BotToken, AppToken, Channel string
	// Allow are the user ids whose taps answer.
	Allow  []string
	Client *http.Client
}

func (s *Slack) Name() string { return "slack " + s.Channel }

// call posts a Web API method with token and decodes the answer into out.
func (s *Slack) call(ctx context.Context, token, method string, args, out any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(s.API, "/")+"/"+method, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := clientOr(s.Client).Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var res struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("%s: Slack answered %s that does not parse", method, resp.Status)
	}
	if !res.OK {
		return fmt.Errorf("%s: Slack answered %s", method, res.Error)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func slackSection(text string) map[string]any {
	return map[string]any{"type": "section", "text": slackText{"mrkdwn", text}}
}

func (s *Slack) Send(ctx context.Context, m Message) (string, error) {
	var buttons []map[string]any
	for i, b := range m.Buttons {
		btn := map[string]any{"type": "button", "action_id": fmt.Sprintf("devrites-%d", i+1),
			"text": slackText{"plain_text", b.Label}, "value": b.Token}
		if b.Reject {
			btn["style"] = "danger"
		}
		buttons = append(buttons, btn)
	}
	var got struct {
		Channel string `json:"channel"`
		TS      string `json:"ts"`
	}
	err := s.call(ctx, s.BotToken, "chat.postMessage", map[string]any{"channel": s.Channel, "text": m.Title + "\n" + m.Text,
		"blocks": []any{slackSection("*" + m.Title + "*\n" + m.Text), map[string]any{"type": "actions", "block_id": "devrites", "elements": buttons}}}, &got)
	if err != nil {
		return "", err
	}
	if got.TS == "" {
		return "", errors.New("chat.postMessage: Slack answered without a ts")
	}
	channel := got.Channel
	if channel == "" {
		channel = s.Channel
	}
	return channel + " " + got.TS, nil
}

// Update replaces the message's blocks with the outcome: no buttons.
func (s *Slack) Update(ctx context.Context, ref string, m Message) error {
	channel, ts, ok := strings.Cut(ref, " ")
	if !ok {
		return fmt.Errorf("relay.json: %q is not a Slack channel and ts", ref)
	}
	return s.call(ctx, s.BotToken, "chat.update", map[string]any{"channel": channel, "ts": ts, "text": m.Title + "\n" + m.Outcome,
		"blocks": []any{slackSection("*" + m.Title + "*\n" + m.Outcome)}}, nil)
}

// slackEnvelope is a Socket Mode message.
type slackEnvelope struct {
	EnvelopeID string `json:"envelope_id"`
	Type       string `json:"type"`
	Payload    struct {
		Type string `json:"type"`
		User struct {
			ID       string `json:"id"`
			Username string `json:"username"`
		} `json:"user"`
		ResponseURL string `json:"response_url"`
		Actions     []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"actions"`
	} `json:"payload"`
}

// Listen opens a Socket Mode connection and delivers the button presses
// of block_actions envelopes; every envelope is acknowledged at once. It
// returns when Slack asks for a new connection (disconnect) or the
// connection fails.
func (s *Slack) Listen(ctx context.Context, _ time.Time, taps chan<- Tap) error {
	var open struct {
		URL string `json:"url"`
	}
	if err := s.call(ctx, s.AppToken, "apps.connections.open", map[string]any{}, &open); err != nil {
		return err
	}
	c, _, err := websocket.Dial(ctx, open.URL, &websocket.DialOptions{HTTPClient: &http.Client{Transport: clientOr(s.Client).Transport}})
	if err != nil {
		return fmt.Errorf("socket mode: %w", err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return fmt.Errorf("socket mode: %w", err)
		}
		var env slackEnvelope
		if json.Unmarshal(b, &env) != nil {
			continue
		}
		if env.Type == "disconnect" {
			return errors.New("socket mode: Slack asked for a new connection")
		}
		if env.EnvelopeID != "" {
			ack, _ := json.Marshal(map[string]string{"envelope_id": env.EnvelopeID})
			if err := c.Write(ctx, websocket.MessageText, ack); err != nil {
				return fmt.Errorf("socket mode: %w", err)
			}
		}
		if env.Type != "interactive" || env.Payload.Type != "block_actions" {
			continue
		}
		user := env.Payload.User
		name := user.Username
		if name == "" {
			name = user.ID
		}
		for _, a := range env.Payload.Actions {
			if !strings.HasPrefix(a.ActionID, "devrites-") {
				continue
			}
			respond := env.Payload.ResponseURL
			tap := Tap{Channel: s.Name(), Token: a.Value, Sender: user.ID, By: "slack:" + name, Allowed: slices.Contains(s.Allow, user.ID),
				Reply: func(ctx context.Context, text string) { s.respond(ctx, respond, text) }}
			select {
			case taps <- tap:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// respond tells the person who tapped, in a message only they see.
func (s *Slack) respond(ctx context.Context, url, text string) {
	if url == "" {
		return
	}
	body, _ := json.Marshal(map[string]any{"response_type": "ephemeral", "replace_original": false, "text": text})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if resp, err := clientOr(s.Client).Do(req); err == nil {
		resp.Body.Close()
	}
}
