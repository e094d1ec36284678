package driver

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRoundTrip measures the protocol alone: lock and unlock cycles
// through the fake driver (no Redis), two round trips per cycle.
func BenchmarkRoundTrip(b *testing.B) {
	o := fakeOptions("ok")
	o.ExitWait = 2 * time.Second
	m := openFake(b, o)
	l := m.NewLocker("l0", "p1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Lock(ctx, 0); err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
