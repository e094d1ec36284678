package model

import (
	"bytes"
	"testing"
)

// TestObjectDeclaredWinsOverOps: a history's declared object kind picks
// the checker family; only a history without one is sniffed.
func TestObjectDeclaredWinsOverOps(t *testing.T) {
	semOp := Op{Process: 1, Kind: SemAcquire, Outcome: OK}
	lockOp := Op{Process: 1, Kind: Acquire, Outcome: OK}
	for _, c := range []struct {
		name   string
		object string
		ops    []Op
		want   string
	}{
		{"declared lock, lock ops", ObjectLock, []Op{lockOp}, ObjectLock},
		{"declared permits, no ops", ObjectPermits, nil, ObjectPermits},
		{"declared lock beats a semaphore op", ObjectLock, []Op{semOp}, ObjectLock},
		{"old history with a semaphore op", "", []Op{lockOp, semOp}, ObjectPermits},
		{"old history with lock ops only", "", []Op{lockOp}, ObjectLock},
		{"old empty history", "", nil, ObjectLock},
	} {
		h := &History{Header: Header{Version: FormatVersion, Object: c.object}, Ops: c.ops}
		if got := h.Object(); got != c.want {
			t.Errorf("%s: Object() = %q, want %q", c.name, got, c.want)
		}
	}
}

// TestObjectRoundTrips: the header field survives JSON Lines.
func TestObjectRoundTrips(t *testing.T) {
	var buf bytes.Buffer
	if _, err := NewRecorder(&buf, Header{Object: ObjectPermits}); err != nil {
		t.Fatal(err)
	}
	h, err := ReadHistory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h.Header.Object != ObjectPermits || h.Object() != ObjectPermits {
		t.Fatalf("read back Object %q (%q), want %q", h.Header.Object, h.Object(), ObjectPermits)
	}
}
