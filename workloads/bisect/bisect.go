// Package bisect names the release of a library that brought a find in:
// it replays the find (its shrunk draw: the same seed, duration and plan,
// or the same scenario) on releases between one known clean and one known
// to have it, bisecting, and counts on each release it visits the replays
// that show the find again.
//
// The engine (Run) knows releases only by name: a Replayer runs the find
// on one (HuntReplayer: hunt.Replay on SUBJECT@RELEASE), and a Match
// predicate, given by the caller, says whether a replay shows the find.
// It prints nothing; an Observer hears each release visited, and
// WriteTable and WriteJSON render the Result.
package bisect

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/stats"
)

// DefaultReplays is how many times the find is replayed on each release
// visited when Config.Replays is 0.
const DefaultReplays = 5

// Alpha is the significance level of the Fisher test that decides a flaky
// release (see State).
const Alpha = 0.05

// ErrConfig marks a Config that cannot run; the error names the field.
var ErrConfig = errors.New("bisect: bad config")

// Replayer replays a find on a release of its library.
type Replayer interface {
	// Replay runs the find n times on release, each time with the find's
	// own seed, and returns the trials made; with an error, those made
	// before it. An error that is not ctx's means the release cannot run
	// here (its build fails, its driver does not start).
	Replay(ctx context.Context, release string, n int) ([]hunt.Trial, error)
}

// Observer hears a bisection's progress; its methods are called from the
// goroutine that called Run.
type Observer interface {
	// Visiting is called before the find is replayed on release (again,
	// when it is widened).
	Visiting(release string, replays int)
	// Visited is called once release is classed.
	Visited(r Release)
}

// Config is one bisection.
type Config struct {
	// Releases are the releases to bisect over, oldest first: the first
	// one believed clean (good), the last believed to have the find (bad);
	// at least two (Between lists them).
	Releases []string
	// Refused are releases of Releases not to run, with why (outside the
	// driver's supported range): they are skipped without a replay.
	Refused map[string]string
	// Replays is n, the replays on each release visited (0:
	// DefaultReplays).
	Replays int
	// Replayer runs the find (required).
	Replayer Replayer
	// Match says whether a replay shows the find (required). It is the
	// one definition of "the same find" a bisection uses.
	Match func(hunt.Trial) bool
	// Observer hears each release visited (nil: nothing).
	Observer Observer
	// Rate bisects a regression that made a rare find common: the good
	// release may show the find now and then, and a release has it only
	// when it shows it significantly more often than the good one (see
	// State).
	Rate bool
}

// Run bisects as cfg says: it replays the find on the good release, then
// on the bad one, and, when the good one is clean and the bad one has it,
// on the release nearest the middle of the two closest releases known
// clean and known to have it, until none is left between them to try.
// Each release visited is classed by its hits (State); one that cannot
// run, or stays flaky, is skipped and the bisection goes on with its
// neighbours, as `git bisect skip` does. A bisection without skips visits
// at most 2 + ⌈log₂(len(Releases)−1)⌉ releases.
//
// It returns a nil Result and an error wrapping ErrConfig for a Config
// that cannot run. Otherwise it returns the Result, complete or as far
// as it got when ctx ended (Result.Interrupted, with ctx's error).
//
// Guarantees: Run starts no goroutine; every replay is made through
// cfg.Replayer under ctx; a release is never classed on fewer than
// Replays replays.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	b := newBisector(cfg)
	err := b.run(ctx)
	if err != nil && ctx.Err() != nil {
		b.res.Interrupted = true
		b.res.Why = fmt.Sprintf("stopped (%v) before the boundary was found: it lies between %s and %s", ctx.Err(), b.rel(b.lo).Name, b.rel(b.hi).Name)
	}
	return b.res, err
}

// check fills cfg's defaults and rejects a Config that cannot run.
func (cfg *Config) check() error {
	if cfg.Replays == 0 {
		cfg.Replays = DefaultReplays
	}
	switch {
	case len(cfg.Releases) < 2:
		return fmt.Errorf("%w: Releases: want a good and a bad release, got %d", ErrConfig, len(cfg.Releases))
	case cfg.Replays < 1:
		return fmt.Errorf("%w: Replays %d: want 1 or more", ErrConfig, cfg.Replays)
	case cfg.Replayer == nil:
		return fmt.Errorf("%w: no Replayer", ErrConfig)
	case cfg.Match == nil:
		return fmt.Errorf("%w: no Match", ErrConfig)
	}
	for _, end := range []string{cfg.Releases[0], cfg.Releases[len(cfg.Releases)-1]} {
		if why, ok := cfg.Refused[end]; ok {
			return fmt.Errorf("%w: release %s cannot be an end of the bisection: %s", ErrConfig, end, why)
		}
	}
	return nil
}

// boundaryP is the one-sided Fisher P of the boundary: the first release
// with the find having more hits than the last without.
func boundaryP(has, clean Release) float64 {
	return stats.FisherOneSided(has.Hits, has.Runs-has.Hits, clean.Hits, clean.Runs-clean.Hits)
}
