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
	shared := 0
	const n = 300
	for seed := int64(1); seed <= n; seed++ {
		base := Plan(seed)
		p := DrawObjects(seed, base)
		if q := DrawObjects(seed, base); q.SharedObjects != p.SharedObjects {
			t.Fatalf("seed %d: drew shared %v, then %v", seed, p.SharedObjects, q.SharedObjects)
		}
		if p.SharedObjects {
			shared++
		}
		p.SharedObjects = false
		if !reflect.DeepEqual(p, base) {
			t.Fatalf("seed %d: DrawObjects changed more than SharedObjects", seed)
		}
	}
	if shared < n/3 || shared > 2*n/3 {
		t.Fatalf("%d of %d draws share lock objects, want about half", shared, n)
	}
}

// TestDrawForms: whether a plain draw varies its call forms is a pure
// function of its seed, about one draw in two does, its lease is then whole
// seconds and no shorter than the plan's, and nothing else changes.
func TestDrawForms(t *testing.T) {
	varied := 0
	const n = 300
	for seed := int64(1); seed <= n; seed++ {
		base := Plan(seed)
		p := DrawForms(seed, base)
		if q := DrawForms(seed, base); !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: drew %+v, then %+v", seed, p, q)
		}
		if p.CallForms {
			varied++
			if p.Lease%time.Second != 0 || p.Lease < base.Lease || p.Lease-base.Lease >= time.Second {
				t.Fatalf("seed %d: lease %v from %v, want it rounded up to whole seconds", seed, p.Lease, base.Lease)
			}
		}
		p.CallForms, p.Lease = false, base.Lease
		if !reflect.DeepEqual(p, base) {
			t.Fatalf("seed %d: DrawForms changed more than CallForms and the lease", seed)
		}
	}
	if varied < n/3 || varied > 2*n/3 {
		t.Fatalf("%d of %d draws vary their call forms, want about half", varied, n)
	}
}

// TestDrawLongHoldFirst: whether a plain draw makes its long hold first is
// a pure function of its seed, about one draw in two does, the base plan's
// phases are left as they were, and nothing else changes.
func TestDrawLongHoldFirst(t *testing.T) {
	first := 0
	const n = 300
	for seed := int64(1); seed <= n; seed++ {
		base := Plan(seed)
		p := DrawLongHoldFirst(seed, base)
		if q := DrawLongHoldFirst(seed, base); !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: drew %+v, then %+v", seed, p.Phases, q.Phases)
		}
		if base.Phases.LongHoldFirst {
			t.Fatalf("seed %d: the base plan's phases were changed", seed)
		}
		if p.Phases.LongHoldFirst {
			first++
		}
		ph := *p.Phases
		ph.LongHoldFirst = false
		p.Phases = &ph
		if !reflect.DeepEqual(p, base) {
			t.Fatalf("seed %d: DrawLongHoldFirst changed more than LongHoldFirst", seed)
		}
	}
	if first < n/3 || first > 2*n/3 {
		t.Fatalf("%d of %d draws make their long hold first, want about half", first, n)
	}
	if p := DrawLongHoldFirst(1, workloads.Plan{Workload: "rwlock"}); p.Phases != nil {
		t.Fatal("a plan without phases got some")
	}
}
