package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// NtfyAction is an action button of a published message.
type NtfyAction struct {
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Clear   bool              `json:"clear"`
}

// NtfyMessage is a message as the server keeps and streams it.
type NtfyMessage struct {
	ID         string       `json:"id"`
	Time       int64        `json:"time"`
	Event      string       `json:"event"`
	Topic      string       `json:"topic"`
	Title      string       `json:"title,omitempty"`
	Message    string       `json:"message,omitempty"`
	Tags       []string     `json:"tags,omitempty"`
	Actions    []NtfyAction `json:"actions,omitempty"`
	SequenceID string       `json:"sequence_id,omitempty"`
}

// Ntfy is an ntfy server: publish as JSON (POST /) or as a plain body
// (POST /<topic>), and subscribe to a topic's JSON stream
// (GET /<topic>/json?since=<unix time or message id>), which starts with
// an "open" event and sends what the topic holds since then, then each
// new message. With Token set, every request needs "Authorization:
// Bearer <Token>".
type Ntfy struct {
	service
	Token string

	topics map[string][]NtfyMessage
	seq    int
	now    func() time.Time
}

// NewNtfy starts an ntfy server on loopback; Close stops it.
func NewNtfy(token string) *Ntfy {
	n := &Ntfy{Token: token, topics: map[string][]NtfyMessage{}, now: time.Now}
	n.start("ntfy", n.serve, func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"code":50301,"http":503,"error":"down"}`, http.StatusServiceUnavailable)
	})
	return n
}

// Messages returns what topic holds, oldest first.
func (n *Ntfy) Messages(topic string) []NtfyMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]NtfyMessage(nil), n.topics[topic]...)
}

// WaitMessages waits up to timeout for topic to hold at least count
// messages, and returns them.
func (n *Ntfy) WaitMessages(topic string, count int, timeout time.Duration) ([]NtfyMessage, error) {
	err := n.until(timeout, fmt.Sprintf("%d messages on topic %s", count, topic),
		func() bool { return len(n.topics[topic]) >= count })
	return n.Messages(topic), err
}

// Press does what the ntfy app does when the person taps button i of m:
// the http action's request.
func (n *Ntfy) Press(m NtfyMessage, i int) error {
	if i >= len(m.Actions) {
		return fmt.Errorf("message %s has %d buttons", m.ID, len(m.Actions))
	}
	a := m.Actions[i]
	req, err := http.NewRequest(a.Method, a.URL, strings.NewReader(a.Body))
	if err != nil {
		return err
	}
	for k, v := range a.Headers {
		req.Header.Set(k, v)
	}
	return n.do(req)
}

// Publish posts text to topic as anyone who may publish there would.
func (n *Ntfy) Publish(topic, text string) error {
	req, err := http.NewRequest(http.MethodPost, n.URL+"/"+topic, strings.NewReader(text))
	if err != nil {
		return err
	}
	if n.Token != "" {
		req.Header.Set("Authorization", "Bearer "+n.Token)
	}
	return n.do(req)
}

func (n *Ntfy) do(req *http.Request) error {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	return nil
}

func (n *Ntfy) serve(w http.ResponseWriter, r *http.Request) {
	if n.Token != "" && r.Header.Get("Authorization") != "Bearer "+n.Token {
		http.Error(w, `{"code":40301,"http":403,"error":"forbidden"}`, http.StatusForbidden)
		return
	}
	path := strings.Trim(r.URL.Path, "/")
	switch {
	case r.Method == http.MethodPost && path == "":
		var m NtfyMessage
		if err := decode(r, &m); err != nil || m.Topic == "" {
			http.Error(w, `{"code":40001,"http":400,"error":"invalid request: JSON body with topic expected"}`, http.StatusBadRequest)
			return
		}
		if sid := r.Header.Get("X-Sequence-ID"); sid != "" && m.SequenceID == "" {
			m.SequenceID = sid
		}
		writeJSON(w, http.StatusOK, n.publish(m))
	case (r.Method == http.MethodPost || r.Method == http.MethodPut) && !strings.Contains(path, "/"):
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		writeJSON(w, http.StatusOK, n.publish(NtfyMessage{Topic: path, Message: string(b), Title: r.Header.Get("Title")}))
	case r.Method == http.MethodGet && strings.HasSuffix(path, "/json"):
		n.stream(w, r, strings.TrimSuffix(path, "/json"))
	default:
		http.Error(w, `{"code":40401,"http":404,"error":"page not found"}`, http.StatusNotFound)
	}
}

func (n *Ntfy) publish(m NtfyMessage) NtfyMessage {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seq++
	m.ID, m.Time, m.Event = fmt.Sprintf("m%06d", n.seq), n.now().Unix(), "message"
	n.topics[m.Topic] = append(n.topics[m.Topic], m)
	n.changed()
	return m
}

// stream writes the topic's messages since the since parameter, then
// every new one, one JSON object a line, until the client goes.
func (n *Ntfy) stream(w http.ResponseWriter, r *http.Request, topic string) {
	since := r.URL.Query().Get("since")
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	enc := json.NewEncoder(w)
	_ = enc.Encode(NtfyMessage{ID: "open", Time: n.now().Unix(), Event: "open", Topic: topic})
	w.(http.Flusher).Flush()
	sent := 0
	n.mu.Lock()
	for i, m := range n.topics[topic] {
		if m.ID == since {
			sent = i + 1
		} else if t, err := strconv.ParseInt(since, 10, 64); err == nil && m.Time < t {
			sent = i + 1
		}
	}
	n.mu.Unlock()
	for {
		n.mu.Lock()
		msgs, wake := n.topics[topic], n.wake
		n.mu.Unlock()
		for ; sent < len(msgs); sent++ {
			_ = enc.Encode(msgs[sent])
		}
		w.(http.Flusher).Flush()
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		case <-n.quit:
			return
		case <-time.After(45 * time.Second):
			_ = enc.Encode(NtfyMessage{ID: "keepalive", Time: n.now().Unix(), Event: "keepalive", Topic: topic})
		}
	}
}
