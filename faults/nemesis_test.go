package faults_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// fakeFault is a Fault that only records what is done to it.
type fakeFault struct {
	name     string
	startErr error
	// blocks, if set, makes Start wait for its ctx's end and fail with it,
	// as a CLIENT KILL the run's end cuts off does.
	blocks  bool
	mu      sync.Mutex
	on      bool
	starts  int
	stops   int
	stopCtx error // ctx.Err() seen by the last Stop
}

func (f *fakeFault) Name() string   { return f.name }
func (f *fakeFault) Target() string { return "t-" + f.name }
func (f *fakeFault) Start(ctx context.Context) error {
	f.mu.Lock()
	f.on = true // partly in effect even when it fails
	f.starts++
	f.mu.Unlock()
	if f.blocks {
		<-ctx.Done()
		return fmt.Errorf("client kill addr 127.0.0.1:1: %w", ctx.Err())
	}
	return f.startErr
}
func (f *fakeFault) Stop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.on = false
	f.stops++
	f.stopCtx = ctx.Err()
	return nil
}
func (f *fakeFault) isOn() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.on }

type recorder struct {
	mu sync.Mutex
	ws []faults.Window
}

func (r *recorder) record(w faults.Window) { r.mu.Lock(); r.ws = append(r.ws, w); r.mu.Unlock() }
func (r *recorder) windows() []faults.Window {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]faults.Window(nil), r.ws...)
}

func TestNemesisRunsTheSchedule(t *testing.T) {
	a, b := &fakeFault{name: "a"}, &fakeFault{name: "b"}
	var rec recorder
	var checks int
	var started []string
	n := &faults.Nemesis{
		Faults:   []faults.Fault{a, b},
		Schedule: faults.Schedule{{At: 20 * time.Millisecond, Duration: 50 * time.Millisecond, Fault: 1}, {At: 100 * time.Millisecond, Duration: 30 * time.Millisecond, Fault: 0}},
		Record:   rec.record,
		Started:  func(w faults.Window) { started = append(started, w.Name) },
		Health:   func(context.Context) error { checks++; return nil },
	}
	origin := time.Now()
	if err := n.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	ws := rec.windows()
	if len(ws) != 2 || ws[0].Name != "b" || ws[1].Name != "a" || ws[0].Target != "t-b" {
		t.Fatalf("windows = %+v, want b then a", ws)
	}
	for i, st := range n.Schedule {
		w := ws[i]
		if w.Start.Before(origin.Add(st.At)) || w.End.Before(origin.Add(st.At+st.Duration)) || w.Err != "" {
			t.Errorf("window %d = %+v (from origin %v..%v), want to start after %v and end after %v", i, w, w.Start.Sub(origin), w.End.Sub(origin), st.At, st.At+st.Duration)
		}
	}
	if a.isOn() || b.isOn() || a.starts != 1 || b.stops != 1 {
		t.Errorf("a: on=%v starts=%d; b: on=%v stops=%d", a.isOn(), a.starts, b.isOn(), b.stops)
	}
	if len(started) != 2 || started[0] != "b" || started[1] != "a" {
		t.Errorf("Started calls = %v, want [b a]", started)
	}
	if checks != 4 {
		t.Errorf("%d health checks, want 4 (before and after each fault)", checks)
	}
}

func TestNemesisHealsWhenCancelled(t *testing.T) {
	f := &fakeFault{name: "f"}
	var rec recorder
	n := &faults.Nemesis{Faults: []faults.Fault{f}, Schedule: faults.Schedule{{At: 0, Duration: time.Hour}}, Record: rec.record}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	eventually(t, 5*time.Second, "fault on", func() error {
		if !f.isOn() {
			return errors.New("not yet")
		}
		return nil
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if f.isOn() || f.stopCtx != nil {
		t.Fatalf("after cancel: on=%v, Stop's ctx err=%v; want healed with a live ctx", f.isOn(), f.stopCtx)
	}
	if ws := rec.windows(); len(ws) != 1 || ws[0].End.IsZero() {
		t.Fatalf("windows = %+v, want the one cut-short window", ws)
	}
}

// A fault still starting when the run ends (its ctx) failed nothing: its
// window is kept, as it may have acted in part, and it is healed.
func TestNemesisRunEndsWhileAFaultStarts(t *testing.T) {
	f := &fakeFault{name: "kill", blocks: true}
	var rec recorder
	n := &faults.Nemesis{Faults: []faults.Fault{f}, Schedule: faults.Schedule{{At: 0, Duration: time.Hour}}, Record: rec.record}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := n.Run(ctx); err != nil {
		t.Fatalf("Run: %v; want no error for a start the run's end cut off", err)
	}
	if f.isOn() || f.stops != 1 {
		t.Fatalf("on=%v stops=%d: want the fault healed once", f.isOn(), f.stops)
	}
	if ws := rec.windows(); len(ws) != 1 || ws[0].Err != "" || ws[0].End.IsZero() {
		t.Fatalf("windows = %+v, want one closed window without an error", ws)
	}
}

func TestNemesisStopsOnStartError(t *testing.T) {
	bad := &fakeFault{name: "bad", startErr: errors.New("boom")}
	next := &fakeFault{name: "next"}
	var rec recorder
	n := &faults.Nemesis{
		Faults:   []faults.Fault{bad, next},
		Schedule: faults.Schedule{{At: 0, Duration: time.Hour}, {At: 2 * time.Hour, Duration: time.Second, Fault: 1}},
		Record:   rec.record,
	}
	err := n.Run(t.Context())
	if err == nil || bad.isOn() || bad.stops != 1 || next.starts != 0 {
		t.Fatalf("err=%v, bad on=%v stops=%d, next starts=%d; want an error, bad healed, next not run", err, bad.isOn(), bad.stops, next.starts)
	}
	if ws := rec.windows(); len(ws) != 1 || ws[0].Err == "" {
		t.Fatalf("windows = %+v, want one window carrying the error", ws)
	}
}

func TestNemesisNeedsAHealthyRedis(t *testing.T) {
	f := &fakeFault{name: "f"}
	n := &faults.Nemesis{
		Faults: []faults.Fault{f}, Schedule: faults.Schedule{{At: 0, Duration: time.Millisecond}},
		Health:        func(context.Context) error { return errors.New("LOADING") },
		HealthTimeout: 100 * time.Millisecond,
	}
	if err := n.Run(t.Context()); !errors.Is(err, faults.ErrUnhealthy) || f.starts != 0 {
		t.Fatalf("err=%v, starts=%d; want ErrUnhealthy and no fault started", err, f.starts)
	}
	if err := (&faults.Nemesis{Faults: []faults.Fault{f}, Schedule: faults.Schedule{{Fault: 1, Duration: 1}}}).Run(t.Context()); err == nil {
		t.Fatal("Run with an invalid schedule: want an error")
	}
}

// TestNemesisHealsRealFaults cancels a nemesis while a real redis-server is
// SIGSTOPped, after a black hole on its proxy: both must be healed when Run
// returns.
func TestNemesisHealsRealFaults(t *testing.T) {
	s, l, viaProxy := setup(t, 0)
	direct := redistest.Client(t, s)
	var rec recorder
	n := &faults.Nemesis{
		Faults:   []faults.Fault{faults.BlackHole(l), faults.Pause(s)},
		Schedule: faults.Schedule{{At: 0, Duration: 300 * time.Millisecond, Fault: 0}, {At: 400 * time.Millisecond, Duration: time.Hour, Fault: 1}},
		Record:   rec.record,
		Health:   faults.Ping(direct),
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- n.Run(ctx) }()
	eventually(t, 10*time.Second, "server paused", func() error {
		if !s.Paused() {
			return errors.New("not yet")
		}
		return nil
	})
	cancel() // as on Ctrl-C
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	if s.Paused() {
		t.Fatal("server still paused after Run")
	}
	ctx2, cancel2 := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel2()
	if err := direct.Ping(ctx2).Err(); err != nil {
		t.Fatalf("PING after Run: %v", err)
	}
	eventually(t, 5*time.Second, "PING through the proxy", func() error { return viaProxy.Ping(t.Context()).Err() })
	ws := rec.windows()
	if len(ws) != 2 || ws[0].Name != "proxy-blackhole" || ws[1].Name != "redis-pause" || ws[1].Target != s.Addr() {
		t.Fatalf("windows = %+v", ws)
	}
	for _, w := range ws {
		t.Logf("window %s(%s): %v", w.Name, w.Target, w.End.Sub(w.Start))
	}
}
