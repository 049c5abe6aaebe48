package standin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// SlackButton is a button of a message's actions block.
type SlackButton struct {
	ActionID, Text, Value, Style string
}

// SlackMessage is a message the bot posted, as it stands (after updates).
type SlackMessage struct {
	Channel, TS, Text string
	Buttons           []SlackButton
	Updates           int
}

// SlackUser is who presses a button.
type SlackUser struct {
	ID, Username string
}

// Slack is Slack's Web API (POST /api/<method>, a bearer token, JSON
// answers that carry "ok" and, when not, "error") for chat.postMessage,
// chat.update and apps.connections.open, and the Socket Mode WebSocket
// that apps.connections.open points to: it says hello, sends envelopes,
// and takes the acknowledgements ({"envelope_id"}). A press is a
// block_actions envelope; the response_url it carries is served here too.
type Slack struct {
	service
	BotToken, AppToken string

	msgs      []*SlackMessage
	conn      *websocket.Conn
	acks      map[string]bool
	responses map[string]string
	seq       int
}

func NewSlack(botToken, appToken string) *Slack {
	s := &Slack{BotToken: botToken, AppToken: appToken, acks: map[string]bool{}, responses: map[string]string{}}
	s.start("slack", s.serve, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
	})
	return s
}

// API is the base URL of the Web API.
func (s *Slack) API() string { return s.URL + "/api" }

// WaitMessages waits for count messages and returns copies.
func (s *Slack) WaitMessages(count int, timeout time.Duration) ([]SlackMessage, error) {
	err := s.until(timeout, fmt.Sprintf("%d messages", count), func() bool { return len(s.msgs) >= count })
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SlackMessage
	for _, m := range s.msgs {
		out = append(out, *m)
	}
	return out, err
}

// WaitUpdated waits for the message ts to have been updated.
func (s *Slack) WaitUpdated(ts string, timeout time.Duration) (SlackMessage, error) {
	var got SlackMessage
	err := s.until(timeout, "update of "+ts, func() bool {
		for _, m := range s.msgs {
			if m.TS == ts && m.Updates > 0 {
				got = *m
				return true
			}
		}
		return false
	})
	return got, err
}

// Press sends the block_actions envelope of user pressing button i of m
// over the Socket Mode connection, waits for its acknowledgement and for
// what the relay tells the person (response_url), and returns that.
func (s *Slack) Press(m SlackMessage, i int, user SlackUser, timeout time.Duration) (string, error) {
	return s.PressValue(m, m.Buttons[i].ActionID, m.Buttons[i].Value, user, timeout)
}

// PressValue is Press with any action id and value (forged ones too).
func (s *Slack) PressValue(m SlackMessage, actionID, value string, user SlackUser, timeout time.Duration) (string, error) {
	if err := s.until(timeout, "socket mode connection", func() bool { return s.conn != nil }); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.seq++
	env := fmt.Sprintf("env-%d", s.seq)
	respond := fmt.Sprintf("%s/respond/%d", s.URL, s.seq)
	conn := s.conn
	s.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"envelope_id": env, "type": "interactive", "accepts_response_payload": false,
		"payload": map[string]any{"type": "block_actions", "user": map[string]string{"id": user.ID, "username": user.Username, "name": user.Username},
			"channel": map[string]string{"id": m.Channel}, "message": map[string]string{"ts": m.TS},
			"container":    map[string]string{"type": "message", "message_ts": m.TS, "channel_id": m.Channel},
			"response_url": respond,
			"actions":      []map[string]any{{"type": "button", "action_id": actionID, "block_id": "devrites", "value": value}}}})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		return "", err
	}
	if err := s.until(timeout, "ack of "+env, func() bool { return s.acks[env] }); err != nil {
		return "", err
	}
	var said string
	err := s.until(timeout, "response to "+env, func() bool { var ok bool; said, ok = s.responses[respond]; return ok })
	return said, err
}

// Disconnect sends Slack's "disconnect" envelope: the client is to
// connect again.
func (s *Slack) Disconnect() error {
	s.mu.Lock()
	conn := s.conn
	s.conn = nil
	s.mu.Unlock()
	if conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return conn.Write(ctx, websocket.MessageText, []byte(`{"type":"disconnect","reason":"refresh_requested"}`))
}

func (s *Slack) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/link":
		s.socket(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/respond/"):
		var body struct {
			Text string `json:"text"`
		}
		_ = decode(r, &body)
		s.mu.Lock()
		s.responses[s.URL+r.URL.Path] = body.Text
		s.changed()
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/api/")
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	want := s.BotToken
	if method == "apps.connections.open" {
		want = s.AppToken
	}
	if !ok || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if token != want {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_auth"})
		return
	}
	var args struct {
		Channel string `json:"channel"`
		TS      string `json:"ts"`
		Text    string `json:"text"`
		Blocks  []struct {
			Type     string `json:"type"`
			Elements []struct {
				Type     string `json:"type"`
				ActionID string `json:"action_id"`
				Value    string `json:"value"`
				Style    string `json:"style"`
				Text     struct {
					Text string `json:"text"`
				} `json:"text"`
			} `json:"elements"`
		} `json:"blocks"`
	}
	if err := decode(r, &args); err != nil {
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "invalid_json"})
		return
	}
	var buttons []SlackButton
	for _, b := range args.Blocks {
		for _, e := range b.Elements {
			if b.Type == "actions" && e.Type == "button" {
				buttons = append(buttons, SlackButton{e.ActionID, e.Text.Text, e.Value, e.Style})
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch method {
	case "apps.connections.open":
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": "ws" + strings.TrimPrefix(s.URL, "http") + "/link?ticket=1"})
	case "chat.postMessage":
		if args.Channel == "" {
			writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "channel_not_found"})
			return
		}
		m := &SlackMessage{Channel: args.Channel, TS: fmt.Sprintf("1700000000.%06d", len(s.msgs)+1), Text: args.Text, Buttons: buttons}
		s.msgs = append(s.msgs, m)
		s.changed()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "message": map[string]any{"text": m.Text}})
	case "chat.update":
		for _, m := range s.msgs {
			if m.Channel == args.Channel && m.TS == args.TS {
				m.Text, m.Buttons = args.Text, buttons
				m.Updates++
				s.changed()
				writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "text": m.Text})
				return
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "message_not_found"})
	default:
		writeJSON(w, http.StatusOK, map[string]any{"ok": false, "error": "unknown_method"})
	}
}

// socket is the Socket Mode connection: hello, then the acknowledgements
// the client sends, until it or the stand-in goes.
func (s *Slack) socket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-s.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"hello","num_connections":1,"connection_info":{"app_id":"A0TEST"}}`)); err != nil {
		return
	}
	s.mu.Lock()
	s.conn = c
	s.changed()
	s.mu.Unlock()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string `json:"envelope_id"`
		}
		if json.Unmarshal(b, &ack) == nil && ack.EnvelopeID != "" {
			s.mu.Lock()
			s.acks[ack.EnvelopeID] = true
			s.changed()
			s.mu.Unlock()
		}
	}
}
