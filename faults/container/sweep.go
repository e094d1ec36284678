package container

import (
	"context"
	"errors"
	"fmt"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/lockcheck/lockcheck/faults"
)

// Sweep removes the server containers of lockcheck processes that are gone
// (a SIGKILL skips every Close), the way faults.SweepStale removes their
// directories and firewall tables: every container labelled
// lockcheck.owner whose owner no longer runs. A running lockcheck's
// containers stay. It returns the ids removed; ctx bounds it.
func Sweep(ctx context.Context, cli client.APIClient) ([]string, error) {
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: client.Filters{}.Add("label", ownerLabel)})
	if err != nil {
		return nil, fmt.Errorf("sweep containers: %w", err)
	}
	var removed []string
	var errs []error
	for _, c := range list.Items {
		if !faults.OwnerTagGone(c.Labels[ownerLabel]) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true}); err != nil {
			errs = append(errs, fmt.Errorf("remove stale container %.12s: %w", c.ID, err))
			continue
		}
		removed = append(removed, c.ID)
	}
	return removed, errors.Join(errs...)
}

// SweepEngine sweeps (Sweep) the engine that answers here, if one does
// within ctx: nothing, and no error, where none does.
func SweepEngine(ctx context.Context) ([]string, error) {
	if Available(ctx) != nil {
		return nil, nil
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, nil
	}
	defer cli.Close()
	return Sweep(ctx, cli)
}
