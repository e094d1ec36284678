package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ShimmedServer is SingleServer with the redis-server run through the clock
// shim, so that clock faults can move its wall clock (Env.Server.Clock()).
func ShimmedServer(p faults.Persistence) Topology {
	return singleServer(faults.ServerConfig{Persistence: p, ClockShim: true})
}

// ShimmedRedlockTopology is RedlockTopology with every node run through the
// clock shim (Env.Nodes.Servers[i].Clock()).
func ShimmedRedlockTopology(n int) Topology { return redlockTopology(n, true) }

// clockedSubjectNames are the in-process subjects whose lease arithmetic
// takes a client clock (impl.WithClock): the fair lock, whose scripts get
// the client's time, and the reentrant lock (its watchdog's lease-lost
// judgement only), the control. External subjects take theirs through the
// clock shim.
var clockedSubjectNames = []string{"fair", "reentrant"}

// skipUnclocked lets only the clocked subjects and the external ones run.
func skipUnclocked(s subject.Subject) string {
	if !slices.Contains(clockedSubjectNames, s.Name) && s.Kind != subject.KindExternal {
		return fmt.Sprintf("client clocks are wired for %v (in-process impl.Clock) and driver processes (clock shim)", clockedSubjectNames)
	}
	return DefaultSkip(s)
}

// WithClientClocks gives every client connection of top a clock of its own,
// all at real time: an in-process one (Env.ClientClocks), which the clocked
// subjects (fair, reentrant) are bound to, and a clock-shim one
// (Env.ClientShims), which the driver processes of external subjects run
// on. A clock fault on them skews each client as a wrong system clock
// would.
func WithClientClocks(top Topology) Topology {
	return func(ctx context.Context, clients int) (_ *Env, err error) {
		env, err := top(ctx, clients)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				_ = env.Close()
			}
		}()
		for range clients {
			env.ClientClocks = append(env.ClientClocks, &impl.OffsetClock{})
			c, err := faults.NewClock(ctx)
			if err != nil {
				return nil, err
			}
			env.onClose(c.Close)
			env.ClientShims = append(env.ClientShims, c)
		}
		dial := env.Dial
		env.Dial = func(ctx context.Context, i int) (redis.UniversalClient, error) {
			rdb, err := dial(ctx, i)
			if err == nil {
				env.clientOf.Store(rdb, i)
			}
			return rdb, err
		}
		return env, nil
	}
}

// clientIndex is the number of the client connection rdb (-1 for one
// Dial did not make).
func (e *Env) clientIndex(rdb redis.UniversalClient) int {
	if i, ok := e.clientOf.Load(rdb); ok && i.(int) < len(e.ClientClocks) {
		return i.(int)
	}
	return -1
}

// clientClock is the in-process clock of the client connection rdb
// (RealClock for a connection Dial did not make).
func (e *Env) clientClock(rdb redis.UniversalClient) impl.Clock {
	if i := e.clientIndex(rdb); i >= 0 {
		return e.ClientClocks[i]
	}
	return impl.RealClock
}

// clientEnv is the environment of the driver processes of the client
// connection rdb: its shim clock's (none for a connection Dial did not
// make).
func (e *Env) clientEnv(rdb redis.UniversalClient) func(string) []string {
	if i := e.clientIndex(rdb); i >= 0 && i < len(e.ClientShims) {
		return func(string) []string { return e.ClientShims[i].Env() }
	}
	return nil
}

// bothClocks sets a client's in-process and shim clocks together.
type bothClocks []faults.Offsetter

func (b bothClocks) Set(d time.Duration) {
	for _, c := range b {
		c.Set(d)
	}
}

// clientOffsetters are the client clocks as clock-fault targets: client
// i's in-process and shim clocks move together.
func (e *Env) clientOffsetters() []faults.Offsetter {
	out := make([]faults.Offsetter, len(e.ClientClocks))
	for i, c := range e.ClientClocks {
		b := bothClocks{c}
		if i < len(e.ClientShims) {
			b = append(b, e.ClientShims[i])
		}
		out[i] = b
	}
	return out
}

// clockedSubjects rebinds the clocked subjects of base to the client clocks.
func (e *Env) clockedSubjects(base *subject.Registry) (*subject.Registry, error) {
	var subs []subject.Subject
	for _, name := range clockedSubjectNames {
		s, err := base.Lookup(name)
		if err != nil {
			return nil, err
		}
		fair := s.Fair
		s.Open = nil
		s.Configure = func(o subject.OpenOptions) impl.MakerFunc {
			return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				opts := []impl.Option{impl.WithWatchdogTimeout(o.WatchdogLease), impl.WithClock(e.clientClock(rdb))}
				if fair {
					return impl.FairMaker(opts...)(ctx, rdb)
				}
				return impl.ReentrantMaker(opts...)(ctx, rdb)
			}
		}
		subs = append(subs, s)
	}
	for _, s := range base.All() {
		if s.Kind != subject.KindExternal || s.Configure == nil {
			continue
		}
		configure := s.Configure
		s.Open = nil
		s.Configure = func(o subject.OpenOptions) impl.MakerFunc {
			return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				oo := o
				oo.OwnerEnv = e.clientEnv(rdb)
				return configure(oo)(ctx, rdb)
			}
		}
		subs = append(subs, s)
	}
	return base.With(subs...)
}
