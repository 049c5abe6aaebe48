package standin

import (
	"strings"
	"testing"
	"time"
)

// Closing a stand-in ends a wait at once, saying so, instead of letting it
// run out its timeout.
func TestCloseEndsWaits(t *testing.T) {
	n := NewNtfy("token")
	errs := make(chan error, 1)
	go func() {
		_, err := n.WaitMessages("topic", 1, time.Minute)
		errs <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the wait begin
	n.Close()
	select {
	case err := <-errs:
		if err == nil || !strings.Contains(err.Error(), "closed while waiting for 1 messages on topic topic") {
			t.Fatalf("got %v, want the wait ended by Close", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the wait did not end when the stand-in closed")
	}
}
