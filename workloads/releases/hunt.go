package releases

import (
	"context"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// HuntConfig is how lockcheck hunts a library's releases for the table.
type HuntConfig struct {
	// Budget is each seed's hunt's budget (required).
	Budget time.Duration
	// Seeds is how many hunts each release gets, from seeds 1 to Seeds
	// (required): the same seeds on every release.
	Seeds int
	// Out is the base directory of the hunts' runs ("": rediscover's).
	Out string
	// Registry resolves the releases' subjects (nil: catalog.Subjects).
	Registry *subject.Registry
	// Hunt runs each hunt (nil: hunt.Run); Observer hears them (nil:
	// nothing).
	Hunt     rediscover.HuntFunc
	Observer rediscover.Observer
	// Date and Commit stamp each cached hunt.
	Date, Commit string
}

// Command is the command line that hunts release v of lib as cfg does.
func (cfg HuntConfig) Command(lib, v string) string {
	return fmt.Sprintf("lockcheck releases %s%s%s --hunt --budget %v --seeds %d", lib, subject.VersionSeparator, v, cfg.Budget, cfg.Seeds)
}

// Same says h was hunted with cfg's budget and seeds.
func (cfg HuntConfig) Same(h *Hunt) bool {
	return h != nil && h.Budget == cfg.Budget && len(h.Seeds) == cfg.Seeds
}

// HuntRelease hunts release v of lib (lib's subject at v, as
// NAME@VERSION: the bare subject for the pinned release) once per seed,
// each with rediscover's hunt of one release. It returns ctx's error when
// ctx ended before the last hunt, and what was hunted.
func HuntRelease(ctx context.Context, lib Library, v string, cfg HuntConfig) (*Hunt, error) {
	name := lib.Name + subject.VersionSeparator + v
	h := &Hunt{Release: v, Subject: name, Budget: cfg.Budget, Date: cfg.Date, Commit: cfg.Commit, Command: cfg.Command(lib.Name, v)}
	for s := int64(1); s <= int64(cfg.Seeds); s++ {
		got, err := rediscover.HuntRelease(ctx, rediscover.Config{
			Budget: cfg.Budget, Seed: s, Out: cfg.Out, Registry: cfg.Registry, Hunt: cfg.Hunt, Observer: cfg.Observer,
		}, name, v)
		if err != nil {
			return nil, err
		}
		h.Seeds, h.Hunts = append(h.Seeds, s), append(h.Hunts, got)
		if ctx.Err() != nil {
			return h, ctx.Err()
		}
	}
	return h, nil
}

// Summary is what h found, in a few words: the first find that counts
// (its class and why), else the first that could not run or was cut
// short, else that every hunt ran clean.
func (h *Hunt) Summary() string {
	if h == nil {
		return "not hunted"
	}
	runs := 0
	for _, x := range h.Hunts {
		runs += x.Runs
	}
	for _, x := range h.Hunts {
		if f := x.Find; f != nil {
			again := "seen once, not reproduced"
			if f.Reproduced {
				again = "failed again when shrunk"
			}
			return fmt.Sprintf("found (%s, seed %d, run %d, %s): %s", f.Class, f.Seed, f.Run, again, f.Why)
		}
	}
	for _, x := range h.Hunts {
		switch {
		case x.NotRun != "":
			return "not run: " + x.NotRun
		case x.Err != "":
			return "error: " + x.Err
		case x.Interrupted:
			return fmt.Sprintf("interrupted after %d runs", runs)
		}
	}
	allowed := 0
	for _, x := range h.Hunts {
		allowed += len(x.Allowed)
	}
	s := fmt.Sprintf("nothing beyond the fault in %d runs (%v %s)", runs, h.Budget, onSeeds(h.Seeds))
	if allowed > 0 {
		s += fmt.Sprintf("; %d finds allowed by their fault", allowed)
	}
	return s
}
