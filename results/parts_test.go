package results

import (
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

func TestComputeParts(t *testing.T) {
	h := &model.History{Header: model.Header{Meta: map[string]string{model.MetaParts: "reentrant,node-redlock"}}}
	add := func(p int, k model.Kind, out model.Outcome, err string) {
		h.Ops = append(h.Ops, model.Op{Process: p, Lock: "l", Kind: k, Outcome: out, Error: err})
	}
	add(0, model.Acquire, model.OK, "")
	add(0, model.Release, model.OK, "")
	add(2, model.Acquire, model.Fail, "WRONGTYPE Operation against a key holding the wrong kind of value script: 2c1e4a7f0b9d8e6c5a4b3c2d1e0f9a8b7c6d5e4f, on @user_script:1.")
	add(4, model.Acquire, model.Fail, "WRONGTYPE Operation against a key holding the wrong kind of value script: 2c1e4a7f0b9d8e6c5a4b3c2d1e0f9a8b7c6d5e4f, on @user_script:1.")
	add(1, model.Acquire, model.OK, "")
	add(1, model.Release, model.Info, "driver node-redlock: unlock lockcheck:0a1b2c3d:l0: Unable to fully release the lock on resource 17")
	add(3, model.Release, model.Info, "driver node-redlock: unlock lockcheck:99887766:l1: Unable to fully release the lock on resource 4")
	parts := ComputeParts(h)
	if len(parts) != 2 {
		t.Fatalf("parts = %+v", parts)
	}
	re, rl := parts[0], parts[1]
	if re.Subject != "reentrant" || re.Processes != 3 || re.Acquires != (Counts{OK: 1, Fail: 2}) || re.Releases.OK != 1 {
		t.Errorf("reentrant part = %+v", re)
	}
	if len(re.Errors) != 1 || re.Errors[0].Count != 2 || !strings.HasPrefix(re.Errors[0].Error, "WRONGTYPE") || !strings.Contains(re.Errors[0].Error, "script: <sha>, on @user_script:N") {
		t.Errorf("reentrant errors = %+v", re.Errors)
	}
	if rl.Processes != 2 || rl.Releases.Info != 2 || len(rl.Errors) != 1 || rl.Errors[0].Count != 2 {
		t.Errorf("node-redlock part = %+v (errors masked alike: %+v)", rl, rl.Errors)
	}
	var b strings.Builder
	writeParts(&b, "reentrant+node-redlock", parts, false, "- ")
	for _, want := range []string{"- reentrant: 3 processes; acquires 1 ok, 2 fail", "2× WRONGTYPE", "- node-redlock: 2 processes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	h.Header.Meta[model.MetaParts] = "reentrant"
	if ComputeParts(h) != nil {
		t.Error("one implementation: want no parts")
	}
}

// TestHandoffsBetweenParts: a grant to a waiting process of one part right
// after the other part's last hold was released is a hand-off into the
// first part; reentries, grants to a process that was not waiting, and
// hand-offs within a part are not.
func TestHandoffsBetweenParts(t *testing.T) {
	h := &model.History{Header: model.Header{Meta: map[string]string{model.MetaParts: "reentrant,redisson"}}}
	add := func(p int, k model.Kind, call, ret int64) {
		h.Ops = append(h.Ops, model.Op{Process: p, Lock: "l", Kind: k, Call: call, Return: ret, Outcome: model.OK})
	}
	add(0, model.Acquire, 0, 10)    // p0 (reentrant) holds
	add(0, model.Acquire, 11, 12)   // a reentry
	add(0, model.Release, 13, 14)   // one of two holds: still held
	add(1, model.Acquire, 5, 40)    // p1 (redisson) waits from 5 ...
	add(0, model.Release, 30, 31)   // ... p0 frees the lock at 30
	add(1, model.Release, 50, 51)   // p1 frees it at 50 ...
	add(2, model.Acquire, 60, 70)   // ... p2 (reentrant) asked after: no hand-off
	add(2, model.Release, 80, 81)   // p2 frees it at 80 ...
	add(4, model.Acquire, 75, 90)   // ... p4 (reentrant) waited: same part, no hand-off
	add(4, model.Release, 100, 101) // p4 frees it at 100 ...
	add(3, model.Acquire, 95, 106)  // ... p3 (redisson) waited: a hand-off of 6
	parts := ComputeParts(h)
	if parts[0].HandoffsIn != 0 || parts[1].HandoffsIn != 2 || parts[1].HandoffP50 != 10 {
		t.Fatalf("hand-offs: reentrant %d, redisson %d (p50 %v): want 0 and 2 (p50 10ns)", parts[0].HandoffsIn, parts[1].HandoffsIn, parts[1].HandoffP50)
	}
}

// TestComputePartsByClientProcess: owners that share client processes run
// their process's part ((client-1) % parts), whatever their process ids;
// the render says so and counts the hand-offs within and across processes.
func TestComputePartsByClientProcess(t *testing.T) {
	h := &model.History{Header: model.Header{Meta: map[string]string{model.MetaParts: "redisson,reentrant"}}}
	grant := func(p, client int, at int64) {
		h.Ops = append(h.Ops,
			model.Op{Process: p, Client: client, Lock: "l", Kind: model.Acquire, Outcome: model.OK, Call: at, Return: at + 1},
			model.Op{Process: p, Client: client, Lock: "l", Kind: model.Release, Outcome: model.OK, Call: at + 2, Return: at + 3})
	}
	grant(0, 1, 10) // client 1: redisson, though p0 % 2 would say redisson too
	grant(1, 1, 20) // client 1: redisson, though p1 % 2 would say reentrant
	grant(2, 2, 30) // client 2: reentrant
	grant(3, 2, 40)
	parts := ComputeParts(h)
	if parts[0].Processes != 2 || parts[0].Acquires.OK != 2 || parts[1].Processes != 2 || parts[1].Acquires.OK != 2 {
		t.Fatalf("parts %+v: want p0, p1 on redisson and p2, p3 on reentrant", parts)
	}
	sum := Summary{Subject: "redisson+reentrant", Parts: parts, Stats: ComputeStats(h)}
	var b strings.Builder
	if err := Render(&b, []Summary{sum}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"alternate by client process", "hand-offs: 2 within a process (between its threads), 1 across processes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("render lacks %q:\n%s", want, b.String())
		}
	}
}
