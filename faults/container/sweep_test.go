package container_test

import (
	"context"
	"slices"
	"testing"
	"time"

	ctypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/container"
)

// TestSweep: a container labelled with an owner that is gone is removed;
// one of this live process stays.
func TestSweep(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cli, srv := engineClient(ctx, t)
	img, err := container.EnsureImage(ctx, cli, srv.Bin)
	if err != nil {
		t.Fatal(err)
	}
	create := func(owner string) string {
		t.Helper()
		c, err := cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: &ctypes.Config{
			Image: img.Tag, Cmd: []string{img.Entrypoint, "--version"}, Labels: map[string]string{"lockcheck.owner": owner},
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = cli.ContainerRemove(context.Background(), c.ID, client.ContainerRemoveOptions{Force: true})
		})
		return c.ID
	}
	dead := create("4194303-1") // above any pid the kernel hands out
	live := create(faults.OwnerTag())
	removed, err := container.Sweep(ctx, cli)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, dead) {
		t.Errorf("Sweep removed %v: not the dead owner's %.12s", removed, dead)
	}
	if slices.Contains(removed, live) {
		t.Errorf("Sweep removed this live process's container %.12s", live)
	}
}
