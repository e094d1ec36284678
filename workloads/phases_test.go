package workloads

import (
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

func testPhases() *Phases {
	return &Phases{
		Churn: Range{Min: ms(300), Max: ms(400)}, Storm: Range{Min: ms(150), Max: ms(200)}, Quiet: Range{Min: ms(900), Max: ms(1000)},
		LongHold: Scale{2.2, 3}, Outage: Scale{0.36, 0.44},
		OverrunLease: Range{Min: ms(100), Max: ms(200)}, Overrun: Range{Min: ms(30), Max: ms(100)},
	}
}

func TestScheduleCoversTheRunAndTakesTurns(t *testing.T) {
	lease := 1500 * time.Millisecond
	s := scheduleFor(testPhases(), 7, 20*time.Second, lease, true, true, false)
	var at time.Duration
	var specials []phaseKind
	for _, p := range s {
		if p.start != at || p.end <= p.start {
			t.Fatalf("phase %v [%v, %v] does not follow %v", p.kind, p.start, p.end, at)
		}
		at = p.end
		switch p.kind {
		case phaseLongHold:
			if p.hold < 2200*lease/1000 || p.hold > 3*lease || p.outage < 36*lease/100 || p.outage > 44*lease/100 {
				t.Errorf("long hold %v with outage %v, want 2.2-3 and 0.36-0.44 leases", p.hold, p.outage)
			}
			specials = append(specials, p.kind)
		case phaseOverrun:
			if p.hold < ms(100) || p.hold > ms(200) || p.end-p.start < overrunsPerPhase*(p.hold+p.over) {
				t.Errorf("overrun phase %v-%v with lease %v cannot hold %d overruns", p.start, p.end, p.hold, overrunsPerPhase)
			}
			specials = append(specials, p.kind)
		}
	}
	if at < 20*time.Second {
		t.Fatalf("schedule ends at %v, before the run", at)
	}
	if len(specials) < 2 || specials[0] != phaseOverrun || specials[1] != phaseLongHold {
		t.Fatalf("specials %v: want overruns first, then a long hold, in turn", specials)
	}
	again := scheduleFor(testPhases(), 7, 20*time.Second, lease, true, true, false)
	for i := range s {
		if s[i].kind != again[i].kind || s[i].end != again[i].end || s[i].hold != again[i].hold {
			t.Fatalf("phase %d differs for the same seed", i)
		}
	}
}

func TestScheduleLeavesOutWhatTheRunCannotDo(t *testing.T) {
	lease := 1500 * time.Millisecond
	for name, tc := range map[string]struct {
		renewed, reconnect bool
		duration, lease    time.Duration
		longHolds, outages bool
	}{
		"no watchdog":          {renewed: false, reconnect: true, duration: 20 * time.Second, lease: lease},
		"no reconnects":        {renewed: true, reconnect: false, duration: 20 * time.Second, lease: lease, longHolds: true},
		"long holds over half": {renewed: true, reconnect: true, duration: 20 * time.Second, lease: 30 * time.Second},
		"everything":           {renewed: true, reconnect: true, duration: 20 * time.Second, lease: lease, longHolds: true, outages: true},
	} {
		var long, outage bool
		for _, p := range scheduleFor(testPhases(), 1, tc.duration, tc.lease, tc.renewed, tc.reconnect, false) {
			long = long || p.kind == phaseLongHold
			outage = outage || p.outage > 0
		}
		if long != tc.longHolds || outage != tc.outages {
			t.Errorf("%s: long holds %v, outages %v; want %v, %v", name, long, outage, tc.longHolds, tc.outages)
		}
	}
	if s := scheduleFor(nil, 1, time.Second, lease, true, true, false); s != nil || s.at(0) != nil {
		t.Fatal("no phases must give no schedule")
	}
}

func TestPhasesValidate(t *testing.T) {
	for name, mod := range map[string]func(*Phases){
		"no churn":            func(p *Phases) { p.Churn = Range{} },
		"long hold < 1 lease": func(p *Phases) { p.LongHold = Scale{0.5, 2} },
		"outage too long":     func(p *Phases) { p.Outage = Scale{0.4, 0.6} },
		"outage too short":    func(p *Phases) { p.Outage = Scale{0.2, 0.4} },
		"overrun lease 10ms":  func(p *Phases) { p.OverrunLease = Range{Min: ms(10), Max: ms(100)} },
		"inverted storm":      func(p *Phases) { p.Storm = Range{Min: ms(200), Max: ms(100)} },
	} {
		p := testPhases()
		mod(p)
		if err := p.validate(); err == nil {
			t.Errorf("%s: validate accepted %+v", name, *p)
		}
	}
	if err := testPhases().validate(); err != nil {
		t.Fatal(err)
	}
}

// An overrun's late unlock comes after its hold's Expire window closed,
// however late in its call the grant arrived (it once was timed from the
// acquire's call, and a grant that took 40 ms made the unlock not late).
func TestOverrunEndsAfterItsExpireWindow(t *testing.T) {
	ph := &phase{hold: ms(100), over: ms(30)}
	for _, took := range []time.Duration{0, ms(1), ms(40), ms(49)} {
		grant := model.Op{Kind: model.Acquire, Outcome: model.OK, Call: int64(ms(1000)), Return: int64(ms(1000) + took)}
		end, expire := overrunTimes(grant, ph)
		if int64(end) <= expire.Return {
			t.Errorf("grant after %v: unlock at %v inside the expire window [%v, %v]", took, end, time.Duration(expire.Call), time.Duration(expire.Return))
		}
		if expire.Call > grant.Call+int64(ph.hold) || expire.Return < grant.Return+int64(ph.hold) {
			t.Errorf("grant after %v: expire window [%v, %v] misses the lease's end", took, time.Duration(expire.Call), time.Duration(expire.Return))
		}
	}
}

// The free-wait bound of a plan with quiet phases is the library's
// default, so that `go test` users of Run and the CLI judge alike.
func TestFreeWaitDefaultsByPlan(t *testing.T) {
	for _, tc := range []struct {
		workload string
		set      time.Duration
		want     time.Duration
	}{
		{"hunt", 0, HuntFreeWait},
		{"hunt", -1, 0},
		{"hunt", ms(300), ms(300)},
		{DefaultWorkload, 0, 0},
	} {
		cfg := RunConfig{Subject: "reentrant", Workload: tc.workload, Seed: 3, Duration: ms(1000), FreeWait: tc.set}
		plan, err := cfg.ResolvePlan()
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.freeWait(&plan); got != tc.want {
			t.Errorf("%s with FreeWait %v: bound %v, want %v", tc.workload, tc.set, got, tc.want)
		}
	}
}

// TestScheduleLongHoldFirst: LongHoldFirst puts a long hold where the
// overruns would come first, the two still take turns, and a plan without
// long holds keeps its overruns.
func TestScheduleLongHoldFirst(t *testing.T) {
	lease := 1500 * time.Millisecond
	specialsOf := func(ph *Phases, renewed bool) []phaseKind {
		var out []phaseKind
		for _, p := range scheduleFor(ph, 7, 20*time.Second, lease, renewed, true, false) {
			if p.kind == phaseLongHold || p.kind == phaseOverrun {
				out = append(out, p.kind)
			}
		}
		return out
	}
	ph := testPhases()
	ph.LongHoldFirst = true
	got := specialsOf(ph, true)
	if len(got) < 2 || got[0] != phaseLongHold || got[1] != phaseOverrun {
		t.Fatalf("specials %v: want a long hold first, then overruns, in turn", got)
	}
	if got := specialsOf(ph, false); len(got) == 0 || got[0] != phaseOverrun {
		t.Fatalf("without a watchdog, specials %v: want the overruns alone", got)
	}
}

// Shared overrun phases are drawn for read-write locks only, about one
// overrun phase in two, and each has one anchor, claimed inside the phase.
func TestSharedOverrunsOnReadWriteLocksOnly(t *testing.T) {
	lease := 1500 * time.Millisecond
	shared, overruns := 0, 0
	for seed := int64(1); seed <= 20; seed++ {
		for _, p := range scheduleFor(testPhases(), seed, 20*time.Second, lease, true, true, false) {
			if p.shared || p.anchors(p.start) {
				t.Fatalf("seed %d: a shared phase on a lock with no read side", seed)
			}
		}
		for _, p := range scheduleFor(testPhases(), seed, 20*time.Second, lease, true, true, true) {
			if p.kind != phaseOverrun {
				if p.shared {
					t.Fatalf("seed %d: a shared %v phase", seed, p.kind)
				}
				continue
			}
			overruns++
			if !p.shared {
				continue
			}
			shared++
			if p.anchors(p.end) {
				t.Fatalf("seed %d: an anchor claimed at the phase's end", seed)
			}
			if !p.anchors(p.start) || p.anchors(p.start) {
				t.Fatalf("seed %d: want exactly one anchor per shared phase", seed)
			}
			if !p.draining(p.start) || p.draining(p.start+shareDrain) {
				t.Fatalf("seed %d: the drain is [start, start+%v)", seed, shareDrain)
			}
			for k := 0; k < 3; k++ { // 5 owners: 3 dying readers, two left to write
				if got, ok := p.turn(p.start, 5); !ok || got != k || p.slot(k) < p.start+shareDrain || p.slot(k)+p.hold > p.end {
					t.Fatalf("seed %d: turn %d: got %d, %v, slot %v of [%v, %v]", seed, k, got, ok, p.slot(k), p.start, p.end)
				}
			}
			if _, ok := p.turn(p.start, 5); ok {
				t.Fatalf("seed %d: a fourth dying reader of five owners", seed)
			}
		}
	}
	if shared < overruns/4 || shared > overruns*3/4 {
		t.Fatalf("%d of %d overrun phases shared: want about half", shared, overruns)
	}
}
