package driver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// DefaultStartTimeout bounds a driver's start (banner and hello) when
// Options.StartTimeout is 0. A JVM that starts and connects in a second on
// an idle machine took over 5 s on a loaded CI machine running JVMs beside
// it, and Redisson then refused hello ("Unable to connect"): its connect
// timeout is three quarters of what hello has left. The bound is a limit,
// not a wait: a driver that fails to start fails at once.
const DefaultStartTimeout = 20 * time.Second

// Options configure the driver processes of a Maker.
type Options struct {
	// Command is the driver's argv (required).
	Command []string
	// Dir is the driver's working directory ("": lockcheck's).
	Dir string
	// Env is added to lockcheck's environment for the driver.
	Env []string
	// OwnerEnv, if set, is added to the environment of owner's process
	// (after Env): per-client settings such as a clock shim's LD_PRELOAD
	// and offset file, which skew each client's wall clock on its own.
	OwnerEnv func(owner string) []string
	// Name names the driver in messages ("": Command[0]).
	Name string
	// Capabilities are those the harness relies on (see CapReentrant, ...):
	// a driver whose banner lacks one of them is refused. Handles implement
	// impl.Fenced only with CapFenced here.
	Capabilities []string
	// WatchdogLease is hello's watchdog_ms (0: impl.DefaultWatchdogTimeout).
	WatchdogLease time.Duration
	// Seed is hello's seed.
	Seed int64
	// StartTimeout bounds a driver's start, from its start slot on: banner
	// and hello (0: DefaultStartTimeout).
	StartTimeout time.Duration
	// ReplyGrace is how long past a request's timeout_ms a reply may still
	// arrive before the driver is killed (0: 1 s).
	ReplyGrace time.Duration
	// DefaultTimeout is a request's timeout_ms when its ctx has no deadline
	// (0: 30 s).
	DefaultTimeout time.Duration
	// ExitWait is how long a driver has to exit once its input ends, at
	// Close (0: 2 s).
	ExitWait time.Duration
	// Spares is how many driver processes a Maker keeps started and
	// connected ahead of use (0: none; each owner's process then starts on
	// its first request). See Maker.Ready.
	Spares int
	// Owners is how many owners share one driver process, as threads of an
	// application share one client instance (0 or 1: every owner has a
	// process of its own). With Owners > 1 the driver must announce
	// CapOwners: the Maker puts each new owner into its current process
	// until that one hosts Owners owners or has failed, then starts the
	// next. Whatever ends a process (a failure, Abandon) ends it for every
	// owner in it.
	Owners int
	// SharedObjects is hello's shared_objects, sent to a driver that
	// announces CapSharedObjects (one lock object per name in each client,
	// reused by all its owners); other drivers make their objects as they
	// always do.
	SharedObjects bool
	// OnStall, if set, hears each stall a driver process reports (Reply's
	// Stalls) as times of this process's clock, with the owners the process
	// hosts then; a stall of a process that hosts no owner yet (a spare)
	// is not told. It is called from the process's reader: it must not
	// block.
	OnStall func(owners []string, start, end time.Time)
}

func (o *Options) name() string {
	if o.Name != "" {
		return o.Name
	}
	return o.Command[0]
}

func (o Options) withDefaults() Options {
	if o.WatchdogLease <= 0 {
		o.WatchdogLease = impl.DefaultWatchdogTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.ReplyGrace <= 0 {
		o.ReplyGrace = time.Second
	}
	if o.DefaultTimeout <= 0 {
		o.DefaultTimeout = 30 * time.Second
	}
	if o.ExitWait <= 0 {
		o.ExitWait = 2 * time.Second
	}
	return o
}

// Open returns a MakerFunc whose Makers run the driver of opts, one process
// per owner, connected to the address of the client they are opened on.
func Open(opts Options) impl.MakerFunc {
	opts = opts.withDefaults()
	return func(_ context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		if len(opts.Command) == 0 {
			return nil, errors.New("driver: no command")
		}
		topo, err := topologyOf(rdb)
		if err != nil {
			return nil, err
		}
		m := &Maker{opts: opts, topo: topo, procs: map[string]*proc{}, abandoned: map[*proc]bool{}}
		m.startSpares()
		return m, nil
	}
}

// Maker makes handles whose lock client is a driver process: one process per
// owner (or per Options.Owners owners), started by the owner's first request.
// Close ends them all.
type Maker struct {
	opts Options
	topo Topology

	mu        sync.Mutex
	procs     map[string]*proc
	abandoned map[*proc]bool
	closed    bool
	spares    spares
	// shared is the process new owners join (Options.Owners > 1) and
	// joined how many joined it; sharing serializes its starts.
	shared  *proc
	joined  int
	sharing sync.Mutex
}

var _ impl.Maker = (*Maker)(nil)

// NewLocker returns the handle of owner on lock name. Handles of one owner
// share its driver process.
func (m *Maker) NewLocker(name, owner string) impl.Locker {
	l := &Locker{m: m, name: name, owner: owner}
	switch {
	case m.fenced():
		return &FencedLocker{l}
	case slices.Contains(m.opts.Capabilities, CapFair):
		return &FairLocker{l}
	case slices.Contains(m.opts.Capabilities, CapReadWrite):
		return &SidedLocker{l}
	}
	return l
}

// proc returns owner's driver process, starting it within ctx (bounded by
// StartTimeout) if it has none yet. A process that failed stays the owner's:
// its error is the answer to every later request, since a failed driver's
// client is retired. An owner's handles are used by one goroutine at a time
// (impl.Locker), so two starts for one owner do not race; if they did, the
// first to finish would win and the other be killed.
func (m *Maker) proc(ctx context.Context, owner string) (*proc, error) {
	m.mu.Lock()
	p, ok := m.procs[owner]
	closed := m.closed
	m.mu.Unlock()
	switch {
	case closed:
		return nil, impl.ErrClosed
	case ok:
		return p, nil
	}
	if m.opts.Owners > 1 {
		return m.join(ctx, owner)
	}
	p, err := m.fresh(ctx, owner)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	won, ok := m.procs[owner]
	if !ok && !m.closed {
		m.procs[owner], won = p, p
		p.addOwner(owner)
	}
	closed = m.closed
	m.mu.Unlock()
	if won != p {
		p.kill()
	}
	if closed {
		return nil, impl.ErrClosed
	}
	return won, nil
}

// fresh returns a process for owner's client: a spare, or a new one.
func (m *Maker) fresh(ctx context.Context, owner string) (*proc, error) {
	if p := m.takeSpare(ctx); p != nil {
		return p, nil
	}
	return m.start(ctx, owner)
}

// join puts owner into the shared process, starting one when there is none,
// it is full or it has failed.
func (m *Maker) join(ctx context.Context, owner string) (*proc, error) {
	m.sharing.Lock()
	defer m.sharing.Unlock()
	m.mu.Lock()
	p := m.shared
	if p == nil || m.joined >= m.opts.Owners || p.dead() || m.abandoned[p] {
		p = nil
	}
	m.mu.Unlock()
	if p == nil {
		var err error
		if p, err = m.fresh(ctx, owner); err != nil {
			return nil, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		go p.kill()
		return nil, impl.ErrClosed
	}
	if p != m.shared {
		m.shared, m.joined = p, 0
	}
	m.joined++
	m.procs[owner] = p
	p.addOwner(owner)
	return p, nil
}

// start starts a driver process and says hello.
func (m *Maker) start(ctx context.Context, owner string) (*proc, error) {
	release, err := startSlot(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: waiting to start: %w", ErrDriver, m.opts.name(), err)
	}
	defer release()
	ctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	p, err := startProc(ctx, &m.opts, owner)
	if err != nil {
		return nil, err
	}
	for _, c := range m.opts.Capabilities {
		if !p.banner.Has(c) {
			p.kill()
			return nil, fmt.Errorf("%w: %s announces capabilities %v, the subject needs %v", ErrDriver, p.banner, p.banner.Capabilities, m.opts.Capabilities)
		}
	}
	if !p.banner.Supports(m.topo.Kind) {
		p.kill()
		return nil, fmt.Errorf("%w: %s does not support the %s topology (it supports %v)", ErrDriver, p.banner, m.topo.Kind, p.banner.Topologies)
	}
	if m.opts.Owners > 1 && (!p.banner.Has(CapOwners) || p.banner.Protocol < 2) {
		p.kill()
		return nil, fmt.Errorf("%w: %s hosts one owner per process (its banner lacks capability %q): it cannot run %d owners in one process", ErrDriver, p.banner, CapOwners, m.opts.Owners)
	}
	t := m.topo
	req := Request{
		Op: OpHello, Protocol: min(Version, p.banner.Protocol), Redis: t.Addrs, Username: t.Username, Password: t.Password, DB: t.DB,
		Client: owner, WatchdogMS: millis(m.opts.WatchdogLease), Seed: m.opts.Seed, ReadTimeoutMS: t.ReadTimeout.Milliseconds(),
		MasterName: t.MasterName, SentinelPassword: t.SentinelPassword,
	}
	if t.Kind != TopologySingle {
		req.Topology = t.Kind
	}
	if m.opts.Owners > 1 || p.banner.interrupts() {
		req.Owners, p.shared = max(m.opts.Owners, 1), true
	}
	req.SharedObjects = m.opts.SharedObjects && p.banner.Has(CapSharedObjects)
	rep, err := p.call(ctx, req, m.opts.StartTimeout)
	if err != nil {
		return nil, err
	}
	if rep.Status != StatusOK {
		p.kill()
		return nil, fmt.Errorf("%w: %s refused hello: %s %s", ErrDriver, p.banner, rep.Status, rep.Error)
	}
	return p, nil
}

// abandon kills owner's process, if it has one, without unlocking anything:
// every owner in it with it. With spares, the first abandon of a process
// starts a spare for the client that will replace it.
func (m *Maker) abandon(owner string) {
	m.mu.Lock()
	p := m.procs[owner]
	first := p != nil && !m.abandoned[p]
	if first {
		m.abandoned[p] = true
	}
	m.mu.Unlock()
	if p != nil {
		p.kill()
	}
	if first && m.opts.Spares > 0 {
		m.addSpare()
	}
}

// running returns owner's process, or nil when it has none.
func (m *Maker) running(owner string) *proc {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.procs[owner]
}

// Close ends every driver process, spares included: stdin closed, ExitWait
// to exit, then killed. Nothing is unlocked. It reports drivers that did not
// exit cleanly.
func (m *Maker) Close() error {
	m.mu.Lock()
	m.closed = true
	procs := make([]*proc, 0, len(m.procs))
	for _, p := range m.procs {
		if !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	m.mu.Unlock()
	procs = append(procs, m.stopSpares()...)
	errs := make([]error, len(procs))
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Go(func() { errs[i] = p.close(m.opts.ExitWait) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (m *Maker) fenced() bool { return slices.Contains(m.opts.Capabilities, CapFenced) }

// Probe starts the driver of opts, reads its banner and ends it (stdin
// closed; killed if it does not exit within ExitWait). It needs no Redis:
// it tells what the driver is and what it can do before a run relies on it.
func Probe(ctx context.Context, opts Options) (Banner, error) {
	opts = opts.withDefaults()
	if len(opts.Command) == 0 {
		return Banner{}, errors.New("driver: no command")
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()
	p, err := startProc(ctx, &opts, "")
	if err != nil {
		return Banner{}, err
	}
	_ = p.close(opts.ExitWait)
	return p.banner, nil
}
