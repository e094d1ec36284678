package bisect

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// fakeReplayer replays nothing: a release at or past first has the bug
// (every replay shows it) unless shows says otherwise; broken releases
// cannot run.
type fakeReplayer struct {
	first string
	// shows, if set for a release, says whether its i-th replay (from 0,
	// counted across calls) shows the find.
	shows  map[string]func(i int) bool
	broken map[string]bool
	// cancel, if set, is called on the replay of release cancelAt.
	cancel   func()
	cancelAt string

	calls   []string       // releases replayed, in order (a widened one twice)
	replays map[string]int // replays made per release
}

var errBuild = errors.New("mvn: build failed")

func (f *fakeReplayer) Replay(ctx context.Context, release string, n int) ([]hunt.Trial, error) {
	f.calls = append(f.calls, release)
	if f.replays == nil {
		f.replays = map[string]int{}
	}
	if release == f.cancelAt && f.cancel != nil {
		f.cancel()
		return nil, ctx.Err()
	}
	if f.broken[release] {
		return nil, fmt.Errorf("%w: %s", subject.ErrRelease, errBuild)
	}
	var out []hunt.Trial
	for range n {
		i := f.replays[release]
		f.replays[release]++
		hit := subject.CompareReleases(release, f.first) >= 0
		if s, ok := f.shows[release]; ok {
			hit = s(i)
		}
		out = append(out, hunt.Trial{Find: hit, Dir: fmt.Sprintf("runs/replay/%s-%d", release, i)})
	}
	return out, nil
}

// isFind is the Match of the tests: the fake's trials are the find when
// they are finds at all.
func isFind(t hunt.Trial) bool { return t.Find }

// releases are "1.0.0" ... "1.<n-1>.0", oldest first.
func releases(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("1.%d.0", i))
	}
	return out
}

// fakeVersions is a registry that serves list, of which the driver
// supports r.
func fakeVersions(list []string, r subject.Range) *subject.Versions {
	return &subject.Versions{
		Registry: "the fake registry", Pinned: list[len(list)-1], Supports: r, HowToList: "ask the fake",
		List: func(ctx context.Context) ([]string, error) { return list, ctx.Err() },
	}
}

// recorder is an Observer that keeps what it hears.
type recorder struct {
	visiting []string
	visited  []Release
}

func (r *recorder) Visiting(release string, n int) { r.visiting = append(r.visiting, release) }
func (r *recorder) Visited(rel Release)            { r.visited = append(r.visited, rel) }
