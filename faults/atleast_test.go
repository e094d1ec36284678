package faults_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
)

// A fault made to last waits out its length from when its effect began
// before it heals; one that never took effect heals at once; Stop's ctx
// bounds the wait.
func TestAtLeastLastsFromItsBeginning(t *testing.T) {
	const d = 80 * time.Millisecond
	f := &fakeFault{name: "pause"}
	a := faults.AtLeast(f, d)
	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := a.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took < d {
		t.Errorf("healed %v after it began, want at least %v", took, d)
	}
	if f.stops != 1 {
		t.Errorf("stops = %d, want 1", f.stops)
	}

	start := time.Now()
	if err := a.Stop(context.Background()); err != nil { // no Start in effect: at once
		t.Fatal(err)
	}
	if took := time.Since(start); took >= d {
		t.Errorf("a second Stop waited %v", took)
	}

	if err := a.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	_ = a.Stop(ctx)
	if took := time.Since(start); took >= d {
		t.Errorf("Stop with a done ctx waited %v", took)
	}
}
