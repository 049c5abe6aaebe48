package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
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
	URL   string
	Token string
	Down  atomic.Bool
	Delay atomic.Int64

	srv     *httptest.Server
	mu      sync.Mutex
	msgs    []*TelegramMessage
	updates []map[string]any
	nextUpd int64
	answers map[string]string // callback query id → text
	wake    chan struct{}
	quit    chan struct{}
	polls   atomic.Int64
}

func NewTelegram(token string) *Telegram {
	t := &Telegram{Token: token, answers: map[string]string{}, wake: make(chan struct{}), quit: make(chan struct{}), nextUpd: 100}
	t.srv = httptest.NewServer(http.HandlerFunc(t.serve))
	t.URL = t.srv.URL
	return t
}

func (t *Telegram) Close() { close(t.quit); t.srv.Close() }

func (t *Telegram) changed() {
	close(t.wake)
	t.wake = make(chan struct{})
}

// WaitMessages waits up to timeout for count messages, and returns copies.
func (t *Telegram) WaitMessages(count int, timeout time.Duration) ([]TelegramMessage, error) {
	return t.wait(timeout, func(ms []TelegramMessage) bool { return len(ms) >= count },
		fmt.Sprintf("%d messages", count))
}

// WaitEdited waits for message id to have been edited.
func (t *Telegram) WaitEdited(id int64, timeout time.Duration) (TelegramMessage, error) {
	ms, err := t.wait(timeout, func(ms []TelegramMessage) bool {
		for _, m := range ms {
			if m.ID == id && m.Edits > 0 {
				return true
			}
		}
		return false
	}, fmt.Sprintf("message %d edited", id))
	for _, m := range ms {
		if m.ID == id {
			return m, err
		}
	}
	return TelegramMessage{}, err
}

func (t *Telegram) wait(timeout time.Duration, ok func([]TelegramMessage) bool, what string) ([]TelegramMessage, error) {
	deadline := time.Now().Add(timeout)
	for {
		t.mu.Lock()
		var ms []TelegramMessage
		for _, m := range t.msgs {
			ms = append(ms, *m)
		}
		wake := t.wake
		t.mu.Unlock()
		if ok(ms) {
			return ms, nil
		}
		select {
		case <-wake:
		case <-time.After(time.Until(deadline)):
			return ms, fmt.Errorf("telegram: no %s after %s", what, timeout)
		}
	}
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
	deadline := time.Now().Add(timeout)
	for {
		t.mu.Lock()
		text, ok := t.answers[id]
		wake := t.wake
		t.mu.Unlock()
		if ok {
			return text, nil
		}
		select {
		case <-wake:
		case <-time.After(time.Until(deadline)):
			return "", fmt.Errorf("telegram: callback query %s not answered after %s", id, timeout)
		}
	}
}

func (t *Telegram) fail(w http.ResponseWriter, code int, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": code, "description": desc})
}

func (t *Telegram) serve(w http.ResponseWriter, r *http.Request) {
	if !pause(r, time.Duration(t.Delay.Load()), t.quit) {
		return
	}
	if t.Down.Load() {
		t.fail(w, http.StatusServiceUnavailable, "Service Unavailable")
		return
	}
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
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err := json.Unmarshal(b, &args); err != nil {
		t.fail(w, http.StatusBadRequest, "Bad Request: can't parse JSON")
		return
	}
	ok200 := func(result any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": result})
	}
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
		t.polls.Add(1)
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
