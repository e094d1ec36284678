package bisect

import (
	"context"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// HuntReplayer replays a find's draw on SUBJECT@RELEASE with hunt.Replay:
// the same seed, duration and plan (or scenario) each time, judged as a
// hunt judges its runs, each run in a directory of its own under
// <Out>/runs/replay/.
type HuntReplayer struct {
	// Subject is the subject's bare name ("redisson"), without a release.
	Subject string
	// Draw is the find's.
	Draw hunt.Draw
	// Registry resolves SUBJECT@RELEASE (nil: catalog.Subjects).
	Registry *subject.Registry
	// Out is the base directory of the replays ("": hunt's default).
	Out string
	// Observer hears each replay's run (nil: nothing).
	Observer hunt.Observer
}

// Replay resolves the release first, bounded by ctx (a release not yet in
// the cache is fetched and built: an error then says it cannot run here),
// then replays the draw n times on it.
func (h HuntReplayer) Replay(ctx context.Context, release string, n int) ([]hunt.Trial, error) {
	reg := h.Registry
	if reg == nil {
		reg = catalog.Subjects
	}
	name := h.Subject + subject.VersionSeparator + release
	if !scenario.Known(name) { // a kind with a runner of its own resolves its releases
		if _, err := reg.LookupContext(ctx, name); err != nil {
			return nil, err
		}
	}
	return hunt.Replay(ctx, hunt.Config{Subject: name, Registry: reg, Out: h.Out, Observer: h.Observer}, h.Draw, n)
}
