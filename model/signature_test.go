package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func expireOp(p int, lock string, call, ret int64) Op {
	return Op{Process: p, Lock: lock, Kind: Expire, Call: call, Return: ret, Outcome: OK}
}

func withForm(o Op, form string) Op { o.Form = form; return o }
func withWait(o Op, wait int64) Op  { o.Wait = wait; return o }

// TestSignatureShapes checks each shape on a hand-drawn history that has
// it (inside) and on the same history changed just enough to be legal or
// to be another shape (outside): the outside one has no signature that
// the pattern matches.
func TestSignatureShapes(t *testing.T) {
	held := []Op{acq(0, "L", 0, 10, OK), rel(0, "L", 100, 110, OK)}
	twoHolds := []Op{acq(1, "L", 0, 10, OK), acq(2, "L", 20, 30, OK), rel(1, "L", 40, 50, OK), rel(2, "L", 60, 70, OK)}
	tests := []struct {
		name            string
		pattern         string
		inside, outside *History
		opts            Options
	}{
		{"a grant while another holds", "safety/double-grant/acquire/none",
			hist(acq(1, "L", 0, 10, OK), acq(2, "L", 20, 30, OK)),
			hist(acq(1, "L", 0, 10, OK), rel(1, "L", 12, 15, OK), acq(2, "L", 20, 30, OK)), Options{}},
		{"a grant while another holds, by call form", "safety/double-grant/acquire.lockInterruptibly/none",
			hist(acq(1, "L", 0, 10, OK), withForm(acq(2, "L", 20, 30, OK), "lockInterruptibly(2, SECONDS)")),
			hist(acq(1, "L", 0, 10, OK), withForm(acq(2, "L", 20, 30, OK), "lock()")), Options{}},
		{"a refusal on a free lock", "refusal/refused-free/acquire/none",
			hist(acq(1, "L", 0, 10, OK), rel(1, "L", 20, 30, OK), try(2, "L", 40, 50, Fail)),
			hist(acq(1, "L", 0, 10, OK), try(2, "L", 40, 50, Fail)), Options{}},
		{"an unlock of a lock not held answered ok", "contract/unlock-not-held/release/none",
			hist(acq(1, "L", 0, 10, OK), rel(1, "L", 20, 30, OK), rel(2, "L", 40, 50, OK)),
			hist(acq(1, "L", 0, 10, OK), rel(1, "L", 20, 30, OK), rel(2, "L", 40, 50, Fail)), Options{}},
		{"an unlock after its lease ran out answered ok", "contract/unlock-after-lapse/release/none",
			hist(withLease(acq(1, "L", 0, 10, OK), 100), expireOp(1, "L", 100, 111), rel(1, "L", 200, 210, OK)),
			hist(withLease(acq(1, "L", 0, 10, OK), 100), expireOp(1, "L", 100, 111), rel(1, "L", 200, 210, Fail)), Options{}},
		{"a TryLock answered after its wait", "contract/late-answer/acquire/none",
			hist(rel(1, "L", 0, 0, Fail), Op{Process: 1, Lock: "L", Kind: Acquire, Call: 0, Return: 5e9, Wait: 1e6, Lease: testLease, Outcome: Fail},
				acq(2, "L", 0, 10, OK)),
			hist(Op{Process: 1, Lock: "L", Kind: Acquire, Call: 0, Return: 1e6, Wait: 1e6, Lease: testLease, Outcome: Fail},
				acq(2, "L", 0, 10, OK)), Options{}},
		{"a waiter overtaken by a later request", "fairness/overtaken/*/*",
			hist(acq(0, "L", 0, 4, OK), rel(0, "L", 10, 15, OK),
				withEnq(acq(1, "L", 2, 30, OK), 3), withEnq(acq(2, "L", 6, 20, OK), 7), rel(2, "L", 22, 25, OK)),
			hist(acq(0, "L", 0, 4, OK), rel(0, "L", 10, 15, OK),
				withEnq(acq(1, "L", 2, 20, OK), 3), rel(1, "L", 22, 25, OK), withEnq(acq(2, "L", 4, 30, OK), 5)), Options{}},
		{"a wait on a free lock", "liveness/wait-on-free/acquire/none",
			hist(append(held, acq(1, "L", 5, 5000, OK))...),
			hist(append(held, acq(1, "L", 5, 2000, OK))...), Options{}},
		{"fencing tokens backwards", "safety/token-backwards/*/none",
			hist(withToken(acq(1, "L", 0, 10, OK), 5), rel(1, "L", 20, 30, OK), withToken(acq(2, "L", 40, 50, OK), 3)),
			hist(withToken(acq(1, "L", 0, 10, OK), 3), rel(1, "L", 20, 30, OK), withToken(acq(2, "L", 40, 50, OK), 5)), Options{}},
		{"two holds beyond a fault that allows none", "safety/double-grant/*/beyond:proxy-latency",
			&History{Ops: twoHolds, Faults: []Fault{{Name: "proxy-latency", Start: 5, End: 25}}},
			&History{Ops: twoHolds, Faults: []Fault{{Name: "redis-restart-empty", Start: 5, End: 25}}}, Options{}},
		{"a release that freed another's hold, beyond a fault", "safety/foreign-release/*/beyond:proxy-latency",
			&History{Ops: twoHolds, Faults: []Fault{{Name: "proxy-latency", Start: 5, End: 25}}},
			&History{Ops: twoHolds, Faults: []Fault{{Name: "redis-restart-empty", Start: 5, End: 25}}}, Options{}},
		{"two holds during a fault that loses them", "safety/double-grant/*/during:redis-restart-empty",
			&History{Ops: twoHolds, Faults: []Fault{{Name: "redis-restart-empty", Start: 5, End: 25}}},
			&History{Ops: twoHolds}, Options{}},
		{"a holder's re-entry refused", "refusal/reentry-refused/acquire/none",
			hist(acq(1, "L", 0, 10, OK), try(1, "L", 20, 30, Fail), rel(1, "L", 40, 50, OK)),
			hist(acq(1, "L", 0, 10, OK), try(2, "L", 20, 30, Fail), rel(1, "L", 40, 50, OK)), Options{}},
		{"a holder told it held nothing", "refusal/owner-refused/acquire+release/none",
			hist(acq(1, "L", 0, 10, OK), rel(1, "L", 20, 30, Fail)),
			hist(withLease(acq(1, "L", 0, 10, OK), 15), expireOp(1, "L", 15, 25), rel(1, "L", 30, 40, Fail)), Options{}},
		{"a holder's hold lost to a lossy fault", "safety/hold-lost/*/during:redis-restart-empty",
			&History{Ops: []Op{acq(1, "L", 0, 10, OK), rel(1, "L", 20, 30, Fail)}, Faults: []Fault{{Name: "redis-restart-empty", Start: 12, End: 18}}},
			hist(acq(1, "L", 0, 10, OK), rel(1, "L", 20, 30, Fail)), Options{}},
		{"a refusal only a crashed process's renewed hold explains", "liveness/orphan-renewed/acquire/none",
			&History{Ops: crashed(3100)}, &History{Ops: crashed(2900)}, Options{WatchdogLease: leaseMs * time.Millisecond}},
		{"a wait past a set bound behind a holder", "liveness/long-wait/acquire/none",
			hist(acq(0, "L", 0, 10, OK), rel(0, "L", 2000, 2010, OK), acq(1, "L", 6, 2100, OK)),
			hist(acq(0, "L", 0, 10, OK), rel(0, "L", 500, 510, OK), acq(1, "L", 6, 600, OK)), Options{MaxWait: 1000}},
		{"a semaphore granted beyond its permits", "safety/over-grant/sem-acquire/none",
			&History{Ops: []Op{semOp(0, SemSet, 1, 0, 10, OK), semOp(1, SemAcquire, 1, 20, 30, OK), semOp(2, SemAcquire, 1, 40, 50, OK)}},
			&History{Ops: []Op{semOp(0, SemSet, 2, 0, 10, OK), semOp(1, SemAcquire, 1, 20, 30, OK), semOp(2, SemAcquire, 1, 40, 50, OK)}}, Options{}},
		{"a semaphore's waiter asleep on available permits", "liveness/wait-on-free/sem-acquire/none",
			&History{Ops: []Op{semOp(0, SemSet, 0, 0, 10, OK), withWait(semOp(1, SemAcquire, 1, 20, 5e9, Fail), 5e9), semOp(0, SemAdd, 1, 1e9, 1e9+10, OK)}},
			&History{Ops: []Op{semOp(0, SemSet, 0, 0, 10, OK), withWait(semOp(1, SemAcquire, 1, 20, 5e9, Fail), 5e9), semOp(0, SemAdd, 1, 1e9, 1e9+10, OK),
				semOp(2, SemAcquire, 1, 1e9+20, 1e9+30, OK)}}, Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseSignature(tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			in := Check(tt.inside, tt.opts).Signatures()
			if !p.MatchesAny(in) {
				t.Errorf("inside: no signature fits %s: %v", tt.pattern, in)
			}
			if out := Check(tt.outside, tt.opts).Signatures(); p.MatchesAny(out) {
				t.Errorf("outside: a signature fits %s: %v", tt.pattern, out)
			}
		})
	}
}

// A signature depends on no process number, time or lock name.
func TestSignatureIgnoresNames(t *testing.T) {
	a := Check(hist(acq(1, "L", 0, 10, OK), acq(2, "L", 20, 30, OK)), Options{}).Signatures()
	b := Check(hist(acq(7, "M", 100, 150, OK), acq(3, "M", 400, 900, OK)), Options{}).Signatures()
	if sigText(a) != sigText(b) || len(a) == 0 {
		t.Fatalf("signatures differ: %v and %v", a, b)
	}
}

func sigText(ss []Signature) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.String())
	}
	return strings.Join(parts, " ")
}

// An example a report written before shapes carries its checker's usual
// shape.
func TestSignatureOfOldExample(t *testing.T) {
	s := SignatureOf(CheckFairness, Example{Ops: []Op{acq(1, "L", 0, 1, OK)}})
	if got := s.String(); got != "fairness/overtaken/acquire/none" {
		t.Fatalf("got %s", got)
	}
	if got := SignatureOf(CheckLiveness, Example{}).String(); got != "liveness/long-wait/none/none" {
		t.Fatalf("no ops: got %s, want the ops field none (never the wildcard)", got)
	}
}

func TestParseSignature(t *testing.T) {
	good := []string{
		"safety/double-grant/acquire+acquire.lock/beyond:client-conn-kill",
		"*/*/*/*",
		"contract/unlock-after-lapse/release/none",
		"liveness/wait-on-free/*/during:*",
		"refusal/refused-free/acquire.tryLock+release/beyond:proxy-latency+redis-pause",
		"safety/watchdog-gave-up.after-failure/acquire+release/beyond:*",
	}
	for _, s := range good {
		p, err := ParseSignature(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		if p.String() != s {
			t.Errorf("%s: round trip %s", s, p)
		}
	}
	bad := []string{
		"", "safety/double-grant/acquire", "unsafe/double-grant/acquire/none", "safety/two-grants/acquire/none",
		"safety/double-grant/release+acquire/none", "safety/double-grant/acquire+acquire/none",
		"safety/double-grant/Acquire/none", "safety/double-grant/acquire/sometimes", "safety/double-grant/acquire/beyond:",
		"safety/double-grant/acquire/beyond:b+a", "safety/double-grant//none",
		"safety/watchdog-gave-up.at-random/*/*", "safety/watchdog-gave-up./*/*",
	}
	for _, s := range bad {
		if _, err := ParseSignature(s); !errors.Is(err, ErrSignature) {
			t.Errorf("%q: err %v, want ErrSignature", s, err)
		}
	}
}

func TestSignatureMatches(t *testing.T) {
	have, _ := ParseSignature("safety/double-grant/acquire.lock+release.unlock/beyond:client-conn-kill")
	tests := []struct {
		pattern string
		want    bool
	}{
		{"*/*/*/*", true},
		{"safety/double-grant/acquire.lock+release.unlock/beyond:client-conn-kill", true},
		{"safety/*/*/*", true},
		{"refusal/*/*/*", false},
		{"*/foreign-release/*/*", false},
		{"*/*/acquire/*", true},
		{"*/*/acquire.tryLock/*", false},
		{"*/*/acquire+release/*", true},
		{"*/*/acquire+section/*", false},
		{"*/*/*/beyond:*", true},
		{"*/*/*/during:*", false},
		{"*/*/*/none", false},
		{"*/*/*/beyond:redis-pause", false},
	}
	for _, tt := range tests {
		p, err := ParseSignature(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Matches(have); got != tt.want {
			t.Errorf("%s matches %s: %v, want %v", tt.pattern, have, got, tt.want)
		}
	}
}

// A shape's mechanism narrows a pattern: a pattern without one matches
// every mechanism of its shape, one with it only that mechanism.
func TestSignatureMatchesMechanism(t *testing.T) {
	failed, _ := ParseSignature("safety/watchdog-gave-up.after-failure/acquire+release/beyond:hiccup")
	answered, _ := ParseSignature("safety/watchdog-gave-up.after-answer/acquire+release/beyond:hiccup")
	plain, _ := ParseSignature("safety/watchdog-gave-up/acquire+release/beyond:hiccup") // recorded without one
	for _, tt := range []struct {
		pattern       string
		failed, plain bool
	}{
		{"safety/watchdog-gave-up/*/*", true, true},
		{"safety/watchdog-gave-up.after-failure/*/*", true, true},
		{"safety/watchdog-gave-up.after-answer/*/*", false, true},
		{"safety/hold-lost.after-failure/*/*", false, false},
		{"*/*/*/*", true, true},
	} {
		p, err := ParseSignature(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Matches(failed); got != tt.failed {
			t.Errorf("%s matches %s: %v, want %v", p, failed, got, tt.failed)
		}
		if got := p.Matches(plain); got != tt.plain {
			t.Errorf("%s matches %s: %v, want %v", p, plain, got, tt.plain)
		}
		if r := failed.Replayed(); !r.Matches(failed) || r.Matches(answered) {
			t.Errorf("the replay pattern %s of %s", r, failed)
		}
	}
}

func TestSignatureJSON(t *testing.T) {
	in, _ := ParseSignature("liveness/orphan-renewed/acquire/none")
	b, err := json.Marshal(struct{ S Signature }{in})
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ S Signature }
	if err := json.Unmarshal(b, &out); err != nil || out.S.String() != in.String() {
		t.Fatalf("%s -> %+v (%v)", b, out.S, err)
	}
	if err := json.Unmarshal([]byte(`{"S":"x/y"}`), &out); !errors.Is(err, ErrSignature) {
		t.Fatalf("bad signature: err %v", err)
	}
}

// FuzzParseSignature: whatever parses prints back as itself, and a
// signature matches itself.
func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"safety/double-grant/acquire+acquire.lock/beyond:client-conn-kill", "*/*/*/*", "liveness/wait-on-free/none/during:*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseSignature(s)
		if err != nil {
			return
		}
		if p.String() != s {
			t.Fatalf("%q parsed and printed as %q", s, p)
		}
		q, err := ParseSignature(p.String())
		if err != nil || !q.Matches(p) {
			t.Fatalf("%q: does not match itself (%v)", s, err)
		}
	})
}
