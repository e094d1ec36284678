package rediscover

import (
	"context"

	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// MaxUntold bounds the finds with the bug's signature that a buggy
// release's hunt goes on past when their replays do not tell the releases
// apart (Hunted.Untold): each costs a round of replays.
const MaxUntold = 2

// huntOn goes on hunting r's buggy release, on what is left of its budget,
// when its find has the bug's signature but its replays did not tell the
// releases apart (a find seen once, in a rare interleaving): the find and
// its replays go to Hunted.Untold, and the next find with the signature is
// the row's to replay. It reports whether there is a new find to replay;
// when the hunt meets none, the last untold find is the row's find again,
// with its replays.
func (cfg *Config) huntOn(ctx context.Context, r *Row) bool {
	b := &r.Buggy
	c := r.Contrast
	if ctx.Err() != nil || b.Find == nil || c == nil || c.Err != "" || c.TellsApart() ||
		len(b.Untold) >= MaxUntold || cfg.Budget-b.Elapsed < hunt.MinRun {
		return false
	}
	f := *b.Find
	f.Replays = c
	b.Untold, b.Find, r.Contrast = append(b.Untold, f), nil, nil
	cfg.Observer.Hunting(r.Bug, SideBuggy, b.Release)
	*b = cfg.hunt(ctx, *b, soughtAt(cfg.catalog(), r.Bug, SideBuggy))
	if b.Find == nil {
		last := b.Untold[len(b.Untold)-1]
		b.Untold = b.Untold[:len(b.Untold)-1]
		r.Contrast, last.Replays = last.Replays, nil
		b.Find = &last
		return false
	}
	return true
}
