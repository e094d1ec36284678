package hunt

import (
	"reflect"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
)

// TestDrawThreads: a plain draw's threads per process are a pure function
// of its seed; about one draw in three puts the owners into two client
// processes of 2 to 4 threads (about as many owners as before), and every
// drawn plan is valid.
func TestDrawThreads(t *testing.T) {
	grouped := 0
	const n = 300
	for seed := int64(1); seed <= n; seed++ {
		base := Plan(seed)
		p := DrawThreads(seed, base)
		if q := DrawThreads(seed, base); q.ThreadsPerProcess != p.ThreadsPerProcess || q.Processes != p.Processes {
			t.Fatalf("seed %d: drew %d×%d, then %d×%d", seed, p.Processes, p.Threads(), q.Processes, q.Threads())
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if p.Threads() == 1 {
			if p.Processes != base.Processes {
				t.Fatalf("seed %d: ungrouped plan changed its processes %d -> %d", seed, base.Processes, p.Processes)
			}
			continue
		}
		grouped++
		if p.Processes != 2 || p.Threads() < 2 || p.Threads() > 4 {
			t.Fatalf("seed %d: %d processes of %d threads, want 2 of 2..4", seed, p.Processes, p.Threads())
		}
	}
	if grouped < n/5 || grouped > n/2 {
		t.Fatalf("%d of %d draws grouped, want about a third", grouped, n)
	}
}

// TestDrawObjects: whether a plain draw shares its lock objects is a pure
// function of its seed, about one draw in two does, and nothing else of
// the plan changes.
func TestDrawObjects(t *testing.T) {
	drawnAboutHalf(t, DrawObjects, func(p, _ workloads.Plan) bool { return p.SharedObjects },
		func(p, _ workloads.Plan) workloads.Plan { p.SharedObjects = false; return p })
}

// TestDrawForms: whether a plain draw varies its call forms is a pure
// function of its seed, about one draw in two does, its lease is then whole
// seconds and no shorter than the plan's, and nothing else changes.
func TestDrawForms(t *testing.T) {
	drawnAboutHalf(t, DrawForms, func(p, base workloads.Plan) bool {
		if p.CallForms && (p.Lease%time.Second != 0 || p.Lease < base.Lease || p.Lease-base.Lease >= time.Second) {
			t.Fatalf("lease %v from %v, want it rounded up to whole seconds", p.Lease, base.Lease)
		}
		return p.CallForms
	}, func(p, base workloads.Plan) workloads.Plan { p.CallForms, p.Lease = false, base.Lease; return p })
}

// TestDrawLongHoldFirst: whether a plain draw makes its long hold first is
// a pure function of its seed, about one draw in two does, the base plan's
// phases are left as they were, and nothing else changes.
func TestDrawLongHoldFirst(t *testing.T) {
	drawnAboutHalf(t, DrawLongHoldFirst, func(p, base workloads.Plan) bool {
		if base.Phases.LongHoldFirst {
			t.Fatal("the base plan's phases were changed")
		}
		return p.Phases.LongHoldFirst
	}, func(p, _ workloads.Plan) workloads.Plan {
		ph := *p.Phases
		ph.LongHoldFirst = false
		p.Phases = &ph
		return p
	})
	if p := DrawLongHoldFirst(1, workloads.Plan{Workload: "rwlock"}); p.Phases != nil {
		t.Fatal("a plan without phases got some")
	}
}

// drawnAboutHalf checks a draw of one thing of a hunt plan over 300 seeds:
// it is a pure function of the seed, about one draw in two makes it (drew,
// which may check more of the drawn plan against its base), and undo, which
// takes it back, gives the base plan again: nothing else changed.
func drawnAboutHalf(t *testing.T, draw func(int64, workloads.Plan) workloads.Plan,
	drew func(p, base workloads.Plan) bool, undo func(p, base workloads.Plan) workloads.Plan) {
	t.Helper()
	made := 0
	const n = 300
	for seed := int64(1); seed <= n; seed++ {
		base := Plan(seed)
		p := draw(seed, base)
		if q := draw(seed, base); !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: drew %+v, then %+v", seed, p, q)
		}
		if drew(p, base) {
			made++
		}
		if !reflect.DeepEqual(undo(p, base), base) {
			t.Fatalf("seed %d: the draw changed more than what it draws", seed)
		}
	}
	if made < n/3 || made > 2*n/3 {
		t.Fatalf("%d of %d draws made it, want about half", made, n)
	}
}

// TestWaitSiblings: a plan whose owners share client processes and that
// has long holds has their siblings wait on them; one with one owner per
// process, or without long holds, is left as it was, and the base plan's
// phases are never changed.
func TestWaitSiblings(t *testing.T) {
	base := Plan(1)
	if base.Phases == nil || base.Phases.LongHold.Max <= 0 {
		t.Fatal("the hunt's plan has no long holds")
	}
	threaded := base
	threaded.Processes, threaded.ThreadsPerProcess = 2, 3
	if p := WaitSiblings(threaded); !p.Phases.SiblingsWait || base.Phases.SiblingsWait {
		t.Errorf("threads and long holds: siblings wait %v, base changed %v", p.Phases.SiblingsWait, base.Phases.SiblingsWait)
	}
	if p := WaitSiblings(base); p.Phases != base.Phases {
		t.Error("one owner per process: the plan's phases were replaced")
	}
	noLong := threaded
	ph := *noLong.Phases
	ph.LongHold = workloads.Scale{}
	noLong.Phases = &ph
	if p := WaitSiblings(noLong); p.Phases.SiblingsWait {
		t.Error("no long holds: siblings wait")
	}
	if p := WaitSiblings(workloads.Plan{Workload: "rwlock", ThreadsPerProcess: 2}); p.Phases != nil {
		t.Error("a plan without phases got some")
	}
}
