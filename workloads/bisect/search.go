package bisect

import (
	"context"
	"fmt"
)

// bisector is one bisection under way: the releases and what is known of
// them, and the closest known-clean (lo) and known-bad (hi) indices.
type bisector struct {
	cfg    Config
	res    *Result
	lo, hi int
}

func newBisector(cfg Config) *bisector {
	res := &Result{Good: cfg.Releases[0], Bad: cfg.Releases[len(cfg.Releases)-1], Replays: cfg.Replays, Rate: cfg.Rate}
	for _, name := range cfg.Releases {
		r := Release{Name: name}
		if why, ok := cfg.Refused[name]; ok {
			r.State, r.Why = Skipped, why
		}
		res.Releases = append(res.Releases, r)
	}
	return &bisector{cfg: cfg, res: res, lo: 0, hi: len(cfg.Releases) - 1}
}

func (b *bisector) rel(i int) *Release { return &b.res.Releases[i] }

// run checks the ends, then halves the span between lo and hi until no
// release is left there to try, and names the boundary. Its error is
// ctx's.
func (b *bisector) run(ctx context.Context) error {
	if err := b.visit(ctx, b.lo); err != nil {
		return err
	}
	if s := b.rel(b.lo).State; s != Clean {
		b.res.Why = fmt.Sprintf("the good release %s is not clean: %s", b.rel(b.lo).Name, b.rel(b.lo).String())
		return nil
	}
	if err := b.visit(ctx, b.hi); err != nil {
		return err
	}
	if s := b.rel(b.hi).State; s != HasIt {
		b.res.Why = fmt.Sprintf("the bad release %s does not show the find: %s", b.rel(b.hi).Name, b.rel(b.hi).String())
		if s == Flaky {
			b.res.Why += "; a find this rare needs more replays a release to class releases by"
		}
		return nil
	}
	for mid := b.pick(); mid >= 0; mid = b.pick() {
		if err := b.visit(ctx, mid); err != nil {
			return err
		}
		switch b.rel(mid).State {
		case HasIt:
			b.hi = mid
		case Clean:
			b.lo = mid
		}
	}
	b.name()
	return nil
}

// pick is the release between lo and hi not yet visited that is nearest
// their middle (the older of two as near), or -1 when none is left.
func (b *bisector) pick() int {
	mid := (b.lo + b.hi) / 2
	for d := 0; d <= b.hi-b.lo; d++ {
		for _, i := range []int{mid - d, mid + d} {
			if i > b.lo && i < b.hi && b.rel(i).State == "" {
				return i
			}
		}
	}
	return -1
}

// name records the boundary lo | hi and the untested releases between.
func (b *bisector) name() {
	lo, hi := *b.rel(b.lo), *b.rel(b.hi)
	b.res.LastClean, b.res.FirstHas = lo.Name, hi.Name
	for i := b.lo + 1; i < b.hi; i++ {
		b.res.Untested = append(b.res.Untested, b.rel(i).Name)
	}
	b.res.P = boundaryP(hi, lo)
}

// visit replays the find on release i and classes it (State); a flaky
// release is replayed once more as many times. Its error is ctx's: any
// other error of the Replayer skips the release.
func (b *bisector) visit(ctx context.Context, i int) error {
	r := b.rel(i)
	if r.State != "" {
		return nil // refused: skipped without a replay
	}
	b.res.Visits++
	if err := b.replay(ctx, r); err != nil || r.State == Skipped {
		return err
	}
	if b.cfg.Rate {
		return b.classByRate(ctx, i)
	}
	switch {
	case r.Hits == 0:
		r.State = Clean
	case 2*r.Hits > r.Runs:
		r.State = HasIt
	default:
		if err := b.widen(ctx, r); err != nil || r.State == Skipped {
			return err
		}
	}
	b.observe(func(o Observer) { o.Visited(*r) })
	return nil
}

// classByRate classes release i, replayed, against the good release's
// rate of the find (lo's first, the baseline) and the bad one's: the good
// release itself is the baseline unless most of its replays show the
// find; another has it when it shows the find more often than the
// baseline (one-sided Fisher P below Alpha), and is Clean, at the old
// rate, when the bad release shows it more often than it does. One that
// is neither is replayed once more and classed again, or stays Flaky.
func (b *bisector) classByRate(ctx context.Context, i int) error {
	r, good, bad := b.rel(i), b.rel(0), b.rel(len(b.res.Releases)-1)
	for {
		switch {
		case i == 0:
			r.State = Clean
			if 2*r.Hits > r.Runs {
				r.State = HasIt
			}
		case boundaryP(*r, *good) < Alpha:
			r.State, r.P, r.Against = HasIt, boundaryP(*r, *good), "the good release, more often"
		case bad.State == HasIt && boundaryP(*bad, *r) < Alpha:
			r.State, r.P, r.Against = Clean, boundaryP(*bad, *r), "the bad release, less often"
		case !r.Widened:
			r.Widened = true
			if err := b.replay(ctx, r); err != nil || r.State == Skipped {
				return err
			}
			continue
		default:
			r.State = Flaky
		}
		b.observe(func(o Observer) { o.Visited(*r) })
		return nil
	}
}

// widen replays a flaky release r once more, Replays times, and classes
// it against the clean releases' pooled replays (State).
func (b *bisector) widen(ctx context.Context, r *Release) error {
	r.Widened = true
	if err := b.replay(ctx, r); err != nil || r.State == Skipped {
		return err
	}
	var hits, runs int
	for _, c := range b.res.Releases {
		if c.State == Clean {
			hits, runs = hits+c.Hits, runs+c.Runs
		}
	}
	r.P, r.Against = boundaryP(*r, Release{Hits: hits, Runs: runs}), "the clean releases"
	r.State = Flaky
	if r.P < Alpha {
		r.State = HasIt
	}
	return nil
}

// replay runs the find Replays times on r and adds up its hits; a
// Replayer error that is not ctx's skips r (State Skipped, Why).
func (b *bisector) replay(ctx context.Context, r *Release) error {
	b.observe(func(o Observer) { o.Visiting(r.Name, b.cfg.Replays) })
	trials, err := b.cfg.Replayer.Replay(ctx, r.Name, b.cfg.Replays)
	for _, t := range trials {
		r.Runs++
		if b.cfg.Match(t) {
			r.Hits++
		}
		if t.Dir != "" {
			r.Dirs = append(r.Dirs, t.Dir)
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		r.State, r.Why = Skipped, "cannot run: "+err.Error()
		b.observe(func(o Observer) { o.Visited(*r) })
	case r.Runs < b.cfg.Replays*(1+btoi(r.Widened)):
		r.State, r.Why = Skipped, fmt.Sprintf("%d of %d replays made", r.Runs, b.cfg.Replays*(1+btoi(r.Widened)))
		b.observe(func(o Observer) { o.Visited(*r) })
	}
	return nil
}

func (b *bisector) observe(f func(Observer)) {
	if b.cfg.Observer != nil {
		f(b.cfg.Observer)
	}
}

func btoi(v bool) int {
	if v {
		return 1
	}
	return 0
}

// String is the release's standing in a few words: "has it (5 of 5
// replays show the find)", "skipped: cannot run: ...".
func (r Release) String() string {
	switch r.State {
	case Skipped:
		return "skipped: " + r.Why
	case "":
		return "not visited"
	}
	s := fmt.Sprintf("%s (%d of %d replays show the find", r.State, r.Hits, r.Runs)
	if r.Against != "" {
		s += fmt.Sprintf("; P %.3g against %s", r.P, r.Against)
	}
	return s + ")"
}
