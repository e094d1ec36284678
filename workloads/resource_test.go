package workloads

import "testing"

// A fenced register sees tokens on reads too: a holder paused between its
// read and its write (token 2) may not write once the next holder (token 3)
// has read, or the next holder's write would lose its update
// (client-stall-long-hold seed 20786100, the fenced lock). Unfenced
// accesses (token 0) are never refused.
func TestRegisterFencesAWriteAfterANewerRead(t *testing.T) {
	var r register
	if v := r.read(2, 1); v != 0 {
		t.Fatalf("read %d", v)
	}
	if v := r.read(3, 0); v != 0 {
		t.Fatalf("read %d", v)
	}
	if _, ok := r.write(1, 2, 1); ok {
		t.Fatal("a write with token 2 after a read with token 3 was accepted")
	}
	if seq, ok := r.write(1, 3, 0); !ok || seq != 1 {
		t.Fatalf("the newer holder's write: seq %d, %v", seq, ok)
	}
	if _, ok := r.write(2, 3, 5); ok {
		t.Fatal("token 3 presented by another process was accepted")
	}
	var u register
	u.read(0, 1)
	if _, ok := u.write(1, 0, 2); !ok {
		t.Fatal("an unfenced write was refused")
	}
}
