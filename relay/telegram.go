package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Telegram sends through a bot: sendMessage with an inline keyboard (a
// button per row), taps by long-polling getUpdates for callback queries,
// each acknowledged with answerCallbackQuery (the person sees what became
// of the tap), copies replaced with editMessageText.
type Telegram struct {
	API, Token, ChatID string
	// Allow are the user ids whose taps answer (in a private chat, the
	// chat id is the user's id). A group's id does not let its members in.
	Allow  []string
	Client *http.Client
	// PollTimeout is getUpdates' long-poll timeout (default 25s).
	PollTimeout time.Duration
}

func (t *Telegram) Name() string { return "telegram " + t.ChatID }

// telegramText is the limit of answerCallbackQuery's text.
const telegramText = 200

type tgButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

type tgMessage struct {
	MessageID int64 `json:"message_id"`
	Chat      struct {
		ID int64 `json:"id"`
	} `json:"chat"`
}

type tgUser struct {
	ID        int64  `json:"id"`
	Username  string `json:"username"`
	FirstName string `json:"first_name"`
}

type tgUpdate struct {
	UpdateID      int64 `json:"update_id"`
	CallbackQuery *struct {
		ID      string     `json:"id"`
		From    tgUser     `json:"from"`
		Message *tgMessage `json:"message"`
		Data    string     `json:"data"`
	} `json:"callback_query"`
}

// call posts a Bot API method and decodes its result.
func (t *Telegram) call(ctx context.Context, client *http.Client, method string, args, result any) error {
	body, err := json.Marshal(args)
	if err != nil {
		return err
	}
	u := strings.TrimRight(t.API, "/") + "/bot" + t.Token + "/" + method
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", method, redact(err, t.Token))
	}
	defer resp.Body.Close()
	var out struct {
		OK          bool            `json:"ok"`
		Result      json.RawMessage `json:"result"`
		Description string          `json:"description"`
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("%s: Telegram answered %s that does not parse", method, resp.Status)
	}
	if !out.OK {
		return fmt.Errorf("%s: Telegram answered %s: %s", method, resp.Status, out.Description)
	}
	if result != nil {
		return json.Unmarshal(out.Result, result)
	}
	return nil
}

// redact keeps the bot token out of an error that quotes the URL.
func redact(err error, token string) error {
	if token == "" {
		return err
	}
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), token, "<token>"))
}

func (t *Telegram) Send(ctx context.Context, m Message) (string, error) {
	var rows [][]tgButton
	for _, b := range m.Buttons {
		rows = append(rows, []tgButton{{Text: b.Label, CallbackData: b.Token}})
	}
	var got tgMessage
	err := t.call(ctx, clientOr(t.Client), "sendMessage", map[string]any{"chat_id": t.ChatID, "text": m.Title + "\n\n" + m.Text,
		"reply_markup": map[string]any{"inline_keyboard": rows}}, &got)
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(got.MessageID, 10), nil
}

// Update edits the message's text to the outcome; an edit without
// reply_markup takes the keyboard away.
func (t *Telegram) Update(ctx context.Context, ref string, m Message) error {
	id, err := strconv.ParseInt(ref, 10, 64)
	if err != nil {
		return fmt.Errorf("relay.json: %q is not a Telegram message id", ref)
	}
	return t.call(ctx, clientOr(t.Client), "editMessageText", map[string]any{"chat_id": t.ChatID, "message_id": id,
		"text": m.Title + "\n\n" + m.Outcome}, nil)
}

// Listen long-polls getUpdates for callback queries. Each update is
// confirmed by the next call's offset; since is not needed (Telegram keeps
// unconfirmed updates for a day).
func (t *Telegram) Listen(ctx context.Context, _ time.Time, taps chan<- Tap) error {
	poll := t.PollTimeout
	if poll <= 0 {
		poll = 25 * time.Second
	}
	client := &http.Client{Transport: clientOr(t.Client).Transport, Timeout: poll + 15*time.Second}
	var offset int64
	for {
		var updates []tgUpdate
		err := t.call(ctx, client, "getUpdates", map[string]any{"offset": offset, "timeout": int(poll / time.Second),
			"allowed_updates": []string{"callback_query"}}, &updates)
		if err != nil {
			return err
		}
		for _, u := range updates {
			offset = max(offset, u.UpdateID+1)
			cq := u.CallbackQuery
			if cq == nil {
				continue
			}
			from := strconv.FormatInt(cq.From.ID, 10)
			name := cq.From.Username
			if name == "" {
				name = cq.From.FirstName
			}
			if name == "" {
				name = from
			}
			id := cq.ID
			tap := Tap{Channel: t.Name(), Token: cq.Data, Sender: from, By: "telegram:" + name,
				Allowed: slices.Contains(t.Allow, from),
				Reply: func(ctx context.Context, text string) {
					if r := []rune(text); len(r) > telegramText {
						text = string(r[:telegramText-1]) + "…"
					}
					_ = t.call(ctx, clientOr(t.Client), "answerCallbackQuery", map[string]any{"callback_query_id": id, "text": text}, nil)
				}}
			select {
			case taps <- tap:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
