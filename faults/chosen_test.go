package faults_test

import (
	"context"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
)

// A Chosen fault runs what it chooses at each start, stops that, and names
// its target once started.
func TestChosen(t *testing.T) {
	picks := []*fakeFault{{name: "a"}, {name: "b"}}
	n := 0
	c := faults.Chosen("pick", func(context.Context) faults.Fault { n++; return picks[n-1] })
	ctx := context.Background()
	if c.Target() != "" {
		t.Fatalf("target before a start = %q, want none", c.Target())
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatalf("stop before a start: %v", err)
	}
	for i, f := range picks {
		if err := c.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if !f.isOn() || c.Target() != "t-"+f.name || c.Name() != "pick" {
			t.Fatalf("start %d: on %v, target %q", i, f.isOn(), c.Target())
		}
		if err := c.Stop(ctx); err != nil || f.isOn() {
			t.Fatalf("stop %d: %v, still on %v", i, err, f.isOn())
		}
	}
}
