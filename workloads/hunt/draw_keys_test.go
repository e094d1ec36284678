package hunt

import (
	"reflect"
	"slices"
	"testing"
)

// TestDrawKeys: whether a plain draw spreads over several lock names is a
// pure function of its seed, about one draw in three does, its names are
// distinct, of one length and between MinKeys and MaxKeys, nothing else
// changes, and a plan of another workload is left as it is.
func TestDrawKeys(t *testing.T) {
	spread := 0
	const n = 300
	for seed := int64(1); seed <= n; seed++ {
		base := Plan(seed)
		p := DrawKeys(seed, base)
		if q := DrawKeys(seed, base); !reflect.DeepEqual(p, q) {
			t.Fatalf("seed %d: drew %v, then %v", seed, p.Locks, q.Locks)
		}
		if !slices.Equal(p.Locks, base.Locks) {
			spread++
			if len(p.Locks) < MinKeys || len(p.Locks) > MaxKeys {
				t.Fatalf("seed %d: %d locks, want %d to %d", seed, len(p.Locks), MinKeys, MaxKeys)
			}
			for i, name := range p.Locks {
				if len(name) != len(KeyPrefix)+KeyLetters || slices.Contains(p.Locks[:i], name) {
					t.Fatalf("seed %d: names %v: want distinct names of one length", seed, p.Locks)
				}
			}
		}
		p.Locks = base.Locks
		if !reflect.DeepEqual(p, base) {
			t.Fatalf("seed %d: DrawKeys changed more than the locks", seed)
		}
		rw := base
		rw.Workload = "rwlock"
		if got := DrawKeys(seed, rw); !reflect.DeepEqual(got, rw) {
			t.Fatalf("seed %d: a read-write plan's locks changed to %v", seed, got.Locks)
		}
	}
	if spread < n/5 || spread > n/2 {
		t.Fatalf("%d of %d draws spread over several locks, want about a third", spread, n)
	}
}

// TestDrawNest: only a hunt plan of several locks nests, about one in two
// of them, between MinNest and MaxNest percent, as a pure function of the
// seed, and nothing else changes.
func TestDrawNest(t *testing.T) {
	nested, spread := 0, 0
	for seed := int64(1); seed <= 300; seed++ {
		p := DrawKeys(seed, Plan(seed))
		got := DrawNest(seed, p)
		if again := DrawNest(seed, p); !reflect.DeepEqual(got, again) {
			t.Fatalf("seed %d: drew %d, then %d", seed, got.NestPercent, again.NestPercent)
		}
		if len(p.Locks) < 2 {
			if got.NestPercent != 0 {
				t.Fatalf("seed %d: one lock, nesting %d%%", seed, got.NestPercent)
			}
			continue
		}
		spread++
		if got.NestPercent != 0 {
			nested++
			if got.NestPercent < MinNest || got.NestPercent > MaxNest {
				t.Fatalf("seed %d: nesting %d%%, want %d to %d", seed, got.NestPercent, MinNest, MaxNest)
			}
		}
		got.NestPercent = 0
		if !reflect.DeepEqual(got, p) {
			t.Fatalf("seed %d: DrawNest changed more than the nesting", seed)
		}
		rw := p
		rw.Workload = "rwlock"
		if DrawNest(seed, rw).NestPercent != 0 {
			t.Fatalf("seed %d: a read-write plan nests", seed)
		}
	}
	if nested < spread/4 || nested > 3*spread/4 {
		t.Errorf("%d of %d spread draws nest, want about half", nested, spread)
	}
}
