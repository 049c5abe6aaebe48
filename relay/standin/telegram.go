package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// TelegramButton is a button of an inline keyboard.
type TelegramButton struct {
	Text         string `json:"text"`
	CallbackData string `json:"callback_data"`
}

// TelegramMessage is a message the bot sent, as it stands (after edits).
type TelegramMessage struct {
	ID       int64
	ChatID   string
	Text     string
	Keyboard [][]TelegramButton
	Edits    int
}

// TelegramUser is who presses a button.
type TelegramUser struct {
	ID        int64  `json:"id"`
	IsBot     bool   `json:"is_bot"`
	FirstName string `json:"first_name"`
	Username  string `json:"username,omitempty"`
}

// Telegram is the Bot API of one bot: POST /bot<token>/<method> with a
// JSON body, answered {"ok": true, "result": …} or {"ok": false,
// "error_code", "description"}. It speaks sendMessage (inline_keyboard),
// editMessageText, answerCallbackQuery and getUpdates (offset confirms
// the updates before it; timeout long-polls, here at most 5 seconds).
type Telegram struct {
	service
	Token string

	msgs    []*TelegramMessage
	updates []map[string]any
	nextUpd int64
	answers map[string]string // callback query id → text
}

func NewTelegram(token string) *Telegram {
	t := &Telegram{Token: token, answers: map[string]string{}, nextUpd: 100}
	t.start("telegram", t.serve, func(w http.ResponseWriter, _ *http.Request) {
		t.fail(w, http.StatusServiceUnavailable, "Service Unavailable")
	})
	return t
}

// WaitMessages waits up to timeout for count messages, and returns copies.
func (t *Telegram) WaitMessages(count int, timeout time.Duration) ([]TelegramMessage, error) {
	err := t.until(timeout, fmt.Sprintf("%d messages", count), func() bool { return len(t.msgs) >= count })
	return t.messages(), err
}

// WaitEdited waits for message id to have been edited.
func (t *Telegram) WaitEdited(id int64, timeout time.Duration) (TelegramMessage, error) {
	var got TelegramMessage
	err := t.until(timeout, fmt.Sprintf("message %d edited", id), func() bool {
		for _, m := range t.msgs {
			if m.ID == id {
				got = *m
				return m.Edits > 0
			}
		}
		return false
	})
	return got, err
}

// messages returns copies of the messages sent.
func (t *Telegram) messages() []TelegramMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ms []TelegramMessage
	for _, m := range t.msgs {
		ms = append(ms, *m)
	}
	return ms
}

// Press is a person pressing button (row) i of message m: a callback
// query update with the button's data, returning the query's id.
func (t *Telegram) Press(m TelegramMessage, i int, from TelegramUser) string {
	return t.PressData(m, m.Keyboard[i][0].CallbackData, from)
}

// PressData is a press carrying data, as a client could send for any
// button (forged ones included).
func (t *Telegram) PressData(m TelegramMessage, data string, from TelegramUser) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextUpd++
	id := fmt.Sprintf("cb%d", t.nextUpd)
	chat := json.Number(m.ChatID)
	t.updates = append(t.updates, map[string]any{"update_id": t.nextUpd, "callback_query": map[string]any{
		"id": id, "from": from, "chat_instance": "42", "data": data,
		"message": map[string]any{"message_id": m.ID, "date": 0, "chat": map[string]any{"id": chat, "type": "private"}, "text": m.Text}}})
	t.changed()
	return id
}

// WaitAnswer waits for the answerCallbackQuery of query id, and returns its text.
func (t *Telegram) WaitAnswer(id string, timeout time.Duration) (string, error) {
	var text string
	err := t.until(timeout, "answer to callback query "+id, func() bool {
		var ok bool
		text, ok = t.answers[id]
		return ok
	})
	return text, err
}

func (t *Telegram) fail(w http.ResponseWriter, code int, desc string) {
	writeJSON(w, code, map[string]any{"ok": false, "error_code": code, "description": desc})
}

func (t *Telegram) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+t.Token+"/")
	if !ok || r.Method != http.MethodPost {
		t.fail(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	var args struct {
		ChatID      json.Number `json:"chat_id"`
		Text        string      `json:"text"`
		MessageID   int64       `json:"message_id"`
		ReplyMarkup *struct {
			InlineKeyboard [][]TelegramButton `json:"inline_keyboard"`
		} `json:"reply_markup"`
		Offset          int64  `json:"offset"`
		Timeout         int    `json:"timeout"`
		CallbackQueryID string `json:"callback_query_id"`
	}
	if err := decode(r, &args); err != nil {
		t.fail(w, http.StatusBadRequest, "Bad Request: can't parse JSON")
		return
	}
	ok200 := func(result any) { writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result}) }
	switch rest {
	case "sendMessage":
		if args.ChatID == "" || args.Text == "" {
			t.fail(w, http.StatusBadRequest, "Bad Request: chat_id and text are required")
			return
		}
		for _, row := range keyboard(args.ReplyMarkup) {
			for _, btn := range row {
				if len(btn.CallbackData) > 64 {
					t.fail(w, http.StatusBadRequest, "Bad Request: BUTTON_DATA_INVALID")
					return
				}
			}
		}
		t.mu.Lock()
		m := &TelegramMessage{ID: int64(len(t.msgs) + 1), ChatID: string(args.ChatID), Text: args.Text, Keyboard: keyboard(args.ReplyMarkup)}
		t.msgs = append(t.msgs, m)
		t.changed()
		t.mu.Unlock()
		ok200(map[string]any{"message_id": m.ID, "date": time.Now().Unix(), "chat": map[string]any{"id": args.ChatID}, "text": m.Text})
	case "editMessageText":
		t.mu.Lock()
		var m *TelegramMessage
		for _, x := range t.msgs {
			if x.ID == args.MessageID && x.ChatID == string(args.ChatID) {
				m = x
			}
		}
		if m == nil {
			t.mu.Unlock()
			t.fail(w, http.StatusBadRequest, "Bad Request: message to edit not found")
			return
		}
		m.Text, m.Keyboard = args.Text, keyboard(args.ReplyMarkup)
		m.Edits++
		t.changed()
		t.mu.Unlock()
		ok200(map[string]any{"message_id": m.ID, "chat": map[string]any{"id": args.ChatID}, "text": m.Text})
	case "answerCallbackQuery":
		t.mu.Lock()
		t.answers[args.CallbackQueryID] = args.Text
		t.changed()
		t.mu.Unlock()
		ok200(true)
	case "getUpdates":
		deadline := time.After(min(time.Duration(args.Timeout)*time.Second, 5*time.Second))
		for {
			t.mu.Lock()
			// An offset confirms every update before it: they are gone.
			kept := t.updates[:0]
			for _, u := range t.updates {
				if u["update_id"].(int64) >= args.Offset {
					kept = append(kept, u)
				}
			}
			t.updates = kept
			pending, wake := append([]map[string]any(nil), t.updates...), t.wake
			t.mu.Unlock()
			if len(pending) > 0 {
				ok200(pending)
				return
			}
			select {
			case <-wake:
			case <-deadline:
				ok200([]any{})
				return
			case <-r.Context().Done():
				return
			case <-t.quit:
				return
			}
		}
	default:
		t.fail(w, http.StatusNotFound, "Not Found: method not found")
	}
}

func keyboard(m *struct {
	InlineKeyboard [][]TelegramButton `json:"inline_keyboard"`
}) [][]TelegramButton {
	if m == nil {
		return nil
	}
	return m.InlineKeyboard
}
