package faults_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
)

// fakeClients records the calls a runner would get.
type fakeClients struct {
	calls []string
	err   error
}

func (c *fakeClients) Targets() []string { return []string{"c0", "c1"} }
func (c *fakeClients) Stall(_ context.Context, target string) error {
	c.calls = append(c.calls, "stall "+target)
	return c.err
}
func (c *fakeClients) Unstall(_ context.Context, target string) error {
	c.calls = append(c.calls, "unstall "+target)
	return nil
}
func (c *fakeClients) Crash(_ context.Context, target string) error {
	c.calls = append(c.calls, "crash "+target)
	return c.err
}

func TestClientFaults(t *testing.T) {
	c := &fakeClients{}
	stall, crash := faults.Stall(c, "c1"), faults.Crash(c, "c0")
	for _, step := range []func(context.Context) error{stall.Start, stall.Stop, crash.Start, crash.Stop} {
		if err := step(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"stall c1", "unstall c1", "crash c0"}; !slices.Equal(c.calls, want) {
		t.Fatalf("calls = %v, want %v", c.calls, want)
	}
	if stall.Name() != "client-stall" || stall.Target() != "c1" || crash.Name() != "client-crash" {
		t.Fatalf("names: %s(%s), %s(%s)", stall.Name(), stall.Target(), crash.Name(), crash.Target())
	}
	c.err = errors.New("no such client")
	if err := faults.Stall(c, "c9").Start(t.Context()); !errors.Is(err, c.err) {
		t.Fatalf("Stall error = %v, want it wrapped", err)
	}
}
