package permits

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// Dial returns a fresh go-redis client for process i of the run (it
// must not retry commands: impl.ErrRetriesEnabled).
type Dial func(i int) (redis.UniversalClient, error)

// ErrStart is returned (wrapped) by Run when a process's client could not
// start (a driver that refused hello): nothing ran, the run may be tried
// again.
var ErrStart = errors.New("permits: a client could not start")

// roundGap separates rounds: every op of a round has returned by then.
const roundGap = 300 * time.Millisecond

// Run runs plan on subj: an admin (process 0) and plan.Workers workers
// (processes 1..; one whose op is info goes on as a fresh process numbered
// after them), each on a client and Maker of its own, all closed when it
// returns, while nem's faults (nil: none) act on the run; the history
// records their windows. Round r's semaphore is named prefix-r<r>; its
// keys are deleted at the end. Run returns the history, ended, even when
// ctx ends early (then marked interrupted); an error means the run could
// not start, or (wrapping ErrNemesis, with the history) did not get its
// faults.
func Run(ctx context.Context, dial Dial, subj Subject, plan Plan, prefix string, nem Nemesis) (*model.History, error) {
	procs := newProcSet(plan.Workers + 1)
	defer procs.closeAll()
	open := func(i int) error {
		rdb, err := dial(i)
		if err != nil {
			return fmt.Errorf("permits: dial process %d: %w", i, err)
		}
		part := subj.part(i)
		m, err := part.open(ctx, rdb)
		if err != nil {
			_ = rdb.Close()
			return fmt.Errorf("permits: open %s: %w", part.Name, err)
		}
		procs.set(i, m, rdb)
		return nil
	}
	for i := range plan.Workers + 1 {
		if err := open(i); err != nil {
			return nil, err
		}
	}
	if err := prepare(ctx, procs.all(), prefix); err != nil {
		return nil, err
	}
	reopen := func(w int) error {
		if err := open(w); err != nil {
			return err
		}
		return prepare(ctx, []io.Closer{procs.maker(w)}, prefix)
	}
	rec := &recorder{base: time.Now(), timeout: plan.OpTimeout, workers: plan.Workers}
	stopNemesis, err := startNemesis(ctx, nem, rec, procs)
	if err != nil {
		return nil, err
	}
	names := runRounds(ctx, rec, procs, plan, prefix, reopen)
	nemErr := stopNemesis()
	rec.stretchDeadlines()
	cleanup(procs.conn(0), names)
	h := &model.History{
		Header: model.Header{Version: model.FormatVersion, Ends: true, Object: model.ObjectPermits, Meta: map[string]string{
			"subject": subj.Name, "seed": strconv.FormatInt(plan.Seed, 10), "workload": "permits"}},
		Ops:    rec.ops,
		Faults: rec.faults,
		End:    &model.End{At: rec.now(), Interrupted: ctx.Err() != nil},
	}
	return h, nemErr
}

// runRounds runs the plan's rounds, then its handover round, and returns
// the names of the objects they used. A worker a crash retired is
// replaced by reopen (a fresh client and process id) for the rounds that
// start after it, as Jepsen replaces a crashed process.
func runRounds(ctx context.Context, rec *recorder, procs *procSet, plan Plan, prefix string, reopen func(w int) error) []string {
	names := make([]string, plan.Rounds)
	for r := range names {
		names[r] = prefix + "-r" + strconv.Itoa(r)
	}
	var wg sync.WaitGroup
	if lm, ok := procs.maker(0).(latchMaker); ok {
		wg.Go(func() { latchAdmin(ctx, rec, lm, plan, names) })
	} else {
		wg.Go(func() { admin(ctx, rec, setterOf(procs.maker(0)), plan, names) })
	}
	for w := 1; w <= plan.Workers; w++ {
		wg.Go(func() {
			for from := 0; ; {
				runWorker(ctx, rec, procs.maker(w), w, plan, names, from)
				from = plan.roundAt(time.Since(rec.base)) + 1
				if !rec.isRetired(w) || ctx.Err() != nil || from >= len(names) {
					return
				}
				gen := rec.crashCount(w)
				if reopen(w) != nil {
					return
				}
				// (crashed again while it started: still retired, so runWorker
				// returns at once and the next round replaces it again)
				rec.revive(w, gen)
			}
		})
	}
	wg.Wait()
	if hw := handoverWorkers(procs.all(), plan); len(hw) >= 2 {
		names = append(names, handoverRound(ctx, rec, setterOf(procs.maker(0)), hw, plan, prefix)...)
	}
	return names
}

// runWorker runs worker w's part of rounds from.. on its Maker m.
func runWorker(ctx context.Context, rec *recorder, m io.Closer, w int, plan Plan, names []string, from int) {
	switch m := m.(type) {
	case latchMaker:
		latchWorker(ctx, rec, m, w, plan, names, from)
	case permitMaker:
		permitWorker(ctx, rec, m, w, plan, names, from)
	case impl.SemaphoreMaker:
		worker(ctx, rec, m, w, plan, names, from)
	}
}

// roundAt is the round under way at d from the run's base.
func (p Plan) roundAt(d time.Duration) int { return int(d / p.RoundLength()) }

// handoverWorkers returns how each worker makes its handles on a handover
// semaphore when plan has a handover round to run (Plan.Handovers, on a
// counting or permit semaphore), else none.
func handoverWorkers(procs []io.Closer, plan Plan) []func(string) passer {
	if plan.Handovers <= 0 {
		return nil
	}
	var out []func(string) passer
	for _, p := range procs {
		mk := passerOf(p)
		if mk == nil {
			return nil
		}
		out = append(out, mk)
	}
	return out[1:]
}

// prepareAtOnce bounds the clients prepare starts at once: six JVMs of
// Redisson 4.7.0 connecting together on a busy 2-core machine missed
// their connect timeout.
const prepareAtOnce = 2

// prepare readies every process's client before the run's clock starts
// (impl.Preparer: a driver's JVM), prepareAtOnce at a time.
func prepare(ctx context.Context, procs []io.Closer, prefix string) error {
	errs := make([]error, len(procs))
	slots := make(chan struct{}, prepareAtOnce)
	var wg sync.WaitGroup
	for i, m := range procs {
		if p, ok := handleOf(m, prefix).(impl.Preparer); ok {
			wg.Go(func() {
				slots <- struct{}{}
				defer func() { <-slots }()
				errs[i] = p.Prepare(ctx)
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrStart, err)
	}
	return nil
}

// setter sets and adds permits: both kinds of semaphore are one.
type setter interface {
	AddPermits(ctx context.Context, n int) error
	TrySetPermits(ctx context.Context, n int) (bool, error)
}

// handleOf is a handle of m's on name, to prepare m's client with.
func handleOf(m io.Closer, name string) any {
	if lm, ok := m.(latchMaker); ok {
		return lm.NewLatch(name)
	}
	return setterOf(m)(name)
}

// setterOf returns how m makes the admin's handles.
func setterOf(m io.Closer) func(name string) setter {
	if pm, ok := m.(permitMaker); ok {
		return func(name string) setter { return pm.NewPermitSemaphore(name) }
	}
	return func(name string) setter { return m.(impl.SemaphoreMaker).NewSemaphore(name) }
}

// roundStart is when round r begins, from the run's base.
func (p Plan) roundStart(r int) time.Duration {
	return time.Duration(r) * p.RoundLength()
}

// RoundLength is how long one round of p lasts, the gap after it included.
func (p Plan) RoundLength() time.Duration { return p.SetDelay + p.Round + roundGap }

// WithDuration returns p with as many rounds as fill d, at least one.
func (p Plan) WithDuration(d time.Duration) Plan {
	p.Rounds = max(1, int(d/p.RoundLength()))
	return p
}

// sleepUntil sleeps until at from base, or until ctx ends (false).
func sleepUntil(ctx context.Context, base time.Time, at time.Duration) bool {
	t := time.NewTimer(time.Until(base.Add(at)))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// admin gives each round's permits after a random delay of SetDelay/2 to
// SetDelay, while the workers wait (trySetPermits
// or addPermits, see Plan.addRound), then adds one permit at 60% of the
// round and takes it back at 80%.
func admin(ctx context.Context, rec *recorder, newSetter func(string) setter, plan Plan, names []string) {
	rng := plan.rng(0)
	for r, name := range names {
		sem := newSetter(name)
		start := plan.roundStart(r)
		steps := []struct {
			at   time.Duration
			kind model.Kind
			n    int
		}{
			{start + plan.SetDelay/2 + time.Duration(rng.Int64N(int64(plan.SetDelay/2)+1)), model.SemAdd, plan.Total},
			{start + plan.SetDelay + plan.Round*6/10, model.SemAdd, 1},
			{start + plan.SetDelay + plan.Round*8/10, model.SemAdd, -1},
		}
		if !plan.addRound(r) {
			steps[0].kind = model.SemSet
		}
		for _, st := range steps {
			if !sleepUntil(ctx, rec.base, st.at) {
				return
			}
			o := model.Op{Process: 0, Lock: name, Kind: st.kind, N: int64(st.n)}
			_, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) {
				if st.kind == model.SemSet {
					return sem.TrySetPermits(ctx, st.n)
				}
				return true, sem.AddPermits(ctx, st.n)
			})
			if stop {
				return
			}
		}
	}
}

// worker takes 1..MaxN permits with tryAcquire, holds them a random
// while and releases them, until each round's end, from round from on; an
// info op gives it a fresh process id, a crash stops it.
func worker(ctx context.Context, rec *recorder, m impl.SemaphoreMaker, p int, plan Plan, names []string, from int) {
	rng := plan.rng(p)
	for r := from; r < len(names); r++ {
		name := names[r]
		sem := m.NewSemaphore(name)
		live := roundLoop(ctx, rec, plan, r, func() bool {
			n := 1 + rng.IntN(plan.MaxN)
			o := model.Op{Process: p, Lock: name, Kind: model.SemAcquire, N: int64(n), Wait: plan.Wait.Nanoseconds()}
			ok, stop := rec.call(ctx, o, func(ctx context.Context) (bool, error) { return sem.TryAcquire(ctx, n, plan.Wait) })
			if stop || !ok {
				return !stop
			}
			time.Sleep(time.Duration(rng.Int64N(int64(plan.Hold) + 1)))
			o = model.Op{Process: p, Lock: name, Kind: model.SemRelease, N: int64(n)}
			_, stop = rec.call(ctx, o, func(ctx context.Context) (bool, error) { return true, sem.Release(ctx, n) })
			return !stop
		})
		if !live {
			return
		}
	}
}

// roundLoop sleeps until round r starts, then runs body until the
// workers' part of the round ends or ctx ends. It reports false when the
// worker must stop: ctx ended before the round, or body said so (it
// crashed).
func roundLoop(ctx context.Context, rec *recorder, plan Plan, r int, body func() bool) bool {
	start := plan.roundStart(r)
	if !sleepUntil(ctx, rec.base, start) {
		return false
	}
	end := start + plan.SetDelay + plan.Round
	for time.Since(rec.base) < end && ctx.Err() == nil {
		if !body() {
			return false
		}
	}
	return true
}

// cleanup deletes the rounds' keys, best effort.
func cleanup(rdb redis.UniversalClient, names []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, n := range names {
		if err := rdb.Del(ctx, n).Err(); err != nil && !errors.Is(err, redis.Nil) {
			return
		}
	}
}

// Options are the checker options of a permits run.
func Options() model.Options {
	return model.Options{FreeWait: model.DefaultPermitWait}
}
