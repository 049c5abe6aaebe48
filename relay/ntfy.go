package relay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Ntfy publishes to a topic of an ntfy server, with an http action button
// per option that publishes the button's token to the reply topic, and
// reads the taps from the reply topic's JSON stream (/<topic>/json).
// ntfy shows at most three buttons: past that, the first two options and
// Reject are buttons, and the message lists every option.
type Ntfy struct {
	Server, Topic, ReplyTopic string
	Token                     string // access token, or ""
	Client                    *http.Client
	// Quiet is how long the stream may be silent (ntfy sends a keepalive
	// every 45 seconds) before it is opened again; default 2 minutes.
	Quiet time.Duration
}

// ntfyMaxActions is how many action buttons ntfy shows.
const ntfyMaxActions = 3

func (n *Ntfy) Name() string { return "ntfy " + n.Topic }

type ntfyAction struct {
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body"`
	Clear   bool              `json:"clear"`
}

type ntfyPublish struct {
	Topic      string       `json:"topic"`
	Title      string       `json:"title"`
	Message    string       `json:"message"`
	Tags       []string     `json:"tags,omitempty"`
	Actions    []ntfyAction `json:"actions,omitempty"`
	SequenceID string       `json:"sequence_id,omitempty"`
}

// ntfyMessage is a message of a JSON stream.
type ntfyMessage struct {
	ID      string `json:"id"`
	Time    int64  `json:"time"`
	Event   string `json:"event"`
	Topic   string `json:"topic"`
	Message string `json:"message"`
}

func (n *Ntfy) base() string { return strings.TrimRight(n.Server, "/") }

func (n *Ntfy) Send(ctx context.Context, m Message) (string, error) {
	p := ntfyPublish{Topic: n.Topic, Title: m.Title, Message: m.Text, Tags: []string{"question"}}
	buttons := m.Buttons
	if len(buttons) > ntfyMaxActions {
		buttons = append(buttons[:ntfyMaxActions-1:ntfyMaxActions-1], buttons[len(buttons)-1])
	}
	for _, b := range buttons {
		a := ntfyAction{Action: "http", Label: b.Label, URL: n.base() + "/" + url.PathEscape(n.ReplyTopic), Method: "POST", Body: b.Token, Clear: true}
		if n.Token != "" {
			a.Headers = map[string]string{"Authorization": "Bearer " + n.Token}
		}
		p.Actions = append(p.Actions, a)
	}
	got, err := n.publish(ctx, p)
	if err != nil {
		return "", err
	}
	if got.ID == "" {
		return "", errors.New("ntfy answered without a message id")
	}
	return got.ID, nil
}

// Update publishes the outcome with the sequence id of the message, the
// id ntfy gave it, so that the notification is replaced.
func (n *Ntfy) Update(ctx context.Context, ref string, m Message) error {
	_, err := n.publish(ctx, ntfyPublish{Topic: n.Topic, Title: m.Title, Message: m.Outcome, Tags: []string{"white_check_mark"}, SequenceID: ref})
	return err
}

func (n *Ntfy) publish(ctx context.Context, p ntfyPublish) (ntfyMessage, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return ntfyMessage{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.base()+"/", bytes.NewReader(body))
	if err != nil {
		return ntfyMessage{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if p.SequenceID != "" {
		req.Header.Set("X-Sequence-ID", p.SequenceID)
	}
	n.authorize(req)
	resp, err := clientOr(n.Client).Do(req)
	if err != nil {
		return ntfyMessage{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return ntfyMessage{}, fmt.Errorf("ntfy answered %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	var got ntfyMessage
	if err := json.Unmarshal(b, &got); err != nil {
		return ntfyMessage{}, fmt.Errorf("ntfy's answer does not parse: %w", err)
	}
	return got, nil
}

func (n *Ntfy) authorize(req *http.Request) {
	if n.Token != "" {
		req.Header.Set("Authorization", "Bearer "+n.Token)
	}
}

// Listen reads the reply topic's JSON stream from since on; each message
// is a tap. A stream that ends, or stays silent too long, is opened again
// from the last message read, so that no tap is lost or read twice; one
// that cannot be opened is an error.
func (n *Ntfy) Listen(ctx context.Context, since time.Time, taps chan<- Tap) error {
	from := strconv.FormatInt(since.Unix(), 10)
	quiet := n.Quiet
	if quiet <= 0 {
		quiet = 2 * time.Minute
	}
	for {
		start := time.Now()
		last, err := n.stream(ctx, from, quiet, taps)
		if last != "" {
			from = last
		}
		if err != nil || ctx.Err() != nil {
			return err
		}
		if time.Since(start) < time.Second && !sleep(ctx, time.Second) { // a server that closes at once
			return ctx.Err()
		}
	}
}

// stream reads one connection to the JSON stream until it ends, and
// returns the id of the last message it read; the error is why it could
// not be opened or read.
func (n *Ntfy) stream(parent context.Context, since string, quiet time.Duration, taps chan<- Tap) (string, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	u := n.base() + "/" + url.PathEscape(n.ReplyTopic) + "/json?since=" + url.QueryEscape(since)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", err
	}
	n.authorize(req)
	client := &http.Client{Transport: clientOr(n.Client).Transport} // a stream has no overall timeout
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return "", fmt.Errorf("ntfy answered %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	// A stream silent past quiet is dead: it is closed and opened again.
	alive := time.AfterFunc(quiet, cancel)
	defer alive.Stop()
	last := ""
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		alive.Reset(quiet)
		var m ntfyMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Event != "message" {
			continue
		}
		last = m.ID
		t := Tap{Channel: n.Name(), Token: m.Message, Sender: "ntfy", By: "ntfy", Allowed: true}
		select {
		case taps <- t:
		case <-ctx.Done():
			return last, parent.Err()
		}
	}
	if err := sc.Err(); err != nil && ctx.Err() == nil {
		return last, err
	}
	return last, parent.Err() // ended or silent: open it again
}
