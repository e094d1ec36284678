package main

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a strings.Builder safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Off a terminal a run prints progress lines: elapsed, ops and fault
// windows counted from the history as it is written.
func TestProgressLines(t *testing.T) {
	var c historyCounter
	history := `{"header":{"version":1}}` + "\n" + okAcq + okRel + `{"fault":{"name":"redis-pause","start":1,"end":2}}` + "\n"
	for _, chunk := range strings.SplitAfter(history, "\n") {
		if _, err := c.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	var out syncBuffer
	stop := progressLines(&out, 10*time.Millisecond, "reentrant", 30*time.Second, &c)
	for deadline := time.Now().Add(5 * time.Second); out.String() == "" && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	stop()
	first := strings.SplitN(out.String(), "\n", 2)[0]
	if want := "lockcheck run: reentrant: 0s of 30s, 2 ops, 1 fault windows healed"; first != want {
		t.Errorf("progress line %q, want %q", first, want)
	}
}
