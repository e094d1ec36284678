package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// Served is a Go lock to serve over the protocol.
type Served struct {
	// Banner is printed first. Protocol is filled in, and CapOwners added.
	Banner Banner
	// Open returns the MakerFunc for hello's settings (watchdog lease, seed).
	Open func(watchdog time.Duration, seed int64) impl.MakerFunc
}

// Serve is a driver written in Go: it prints s's banner on out, then answers
// requests read from in with handles of the Maker it opens at hello on a
// go-redis client for hello's first address (no retries: the lock decides
// its own). It speaks protocol 2 with CapOwners and CapInterrupt (an
// interrupt cancels the named request's context), and serves protocol 1: a
// request names its owner ("owner"; none: hello's client), every owner has
// its own handles, all on the one Maker and client, as goroutines of an
// application share them. Requests after hello run concurrently, each on a
// goroutine of its own, and their replies go out as they finish. Serve
// returns nil when in ends, after cancelling the requests still running
// and waiting for them, and an error when in or out fails or the first
// request is not a successful hello. It unlocks nothing on the way out.
func Serve(ctx context.Context, in io.Reader, out io.Writer, s Served) error {
	s.Banner.Protocol = Version
	for _, c := range []string{CapInterrupt, CapOwners} {
		if !s.Banner.Has(c) {
			s.Banner.Capabilities = append(slices.Clip(s.Banner.Capabilities), c)
		}
	}
	srv := &server{s: s, enc: json.NewEncoder(out), handles: map[string]map[string]impl.Locker{}, inflight: map[int64]context.CancelCauseFunc{}}
	if err := srv.enc.Encode(s.Banner); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { srv.watch.run(ctx) })
	defer func() {
		cancel()
		wg.Wait()
		srv.close()
	}()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("driver: bad request %.200q: %w", sc.Bytes(), err)
		}
		if srv.maker == nil {
			if err := srv.reply(srv.answer(ctx, req)); err != nil {
				return err
			}
			if srv.maker == nil {
				return errors.New("driver: the first request was not a successful hello")
			}
			continue
		}
		if req.Op == OpInterrupt {
			if err := srv.reply(srv.interrupt(req)); err != nil {
				return err
			}
			continue
		}
		wg.Go(func() { _ = srv.reply(srv.answer(ctx, req)) })
	}
	return sc.Err()
}

// server is Serve's state: the connection hello opened and each owner's
// handles.
type server struct {
	s     Served
	rdb   *redis.Client
	maker impl.Maker
	owner string // hello's client: the owner of requests that name none

	wmu   sync.Mutex // one reply written at a time
	enc   *json.Encoder
	watch stallWatch // the process's own stalls, for the next reply

	mu       sync.Mutex
	handles  map[string]map[string]impl.Locker // owner -> lock name -> handle
	inflight map[int64]context.CancelCauseFunc // cancels each request in flight, by id
}

// errInterrupted is the cause of a request's context that an interrupt
// request cancelled.
var errInterrupted = errors.New("interrupted")

// interrupt cancels request req.Target's context (Go's interrupt): ok when
// it was in flight, fail when it was not.
func (v *server) interrupt(req Request) Reply {
	v.mu.Lock()
	cancel, ok := v.inflight[req.Target]
	v.mu.Unlock()
	if !ok {
		return Reply{ID: req.ID, Status: StatusFail}
	}
	cancel(errInterrupted)
	return Reply{ID: req.ID, Status: StatusOK}
}

func (v *server) reply(rep Reply) error {
	v.wmu.Lock()
	defer v.wmu.Unlock()
	rep.Stalls = v.watch.take()
	return v.enc.Encode(rep)
}

func (v *server) close() {
	if v.maker != nil {
		_ = v.maker.Close()
	}
	if v.rdb != nil {
		_ = v.rdb.Close()
	}
}

// handle returns owner's handle on name (owner "": hello's client).
func (v *server) handle(owner, name string) impl.Locker {
	if owner == "" {
		owner = v.owner
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	hs, ok := v.handles[owner]
	if !ok {
		hs = map[string]impl.Locker{}
		v.handles[owner] = hs
	}
	h, ok := hs[name]
	if !ok {
		h = v.maker.NewLocker(name, owner)
		hs[name] = h
	}
	return h
}

// answer runs one request within its timeout_ms; an interrupt request
// naming it cancels its context meanwhile.
func (v *server) answer(ctx context.Context, req Request) Reply {
	ctx, interrupt := context.WithCancelCause(ctx)
	defer interrupt(nil)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
	defer cancel()
	v.mu.Lock()
	v.inflight[req.ID] = interrupt
	v.mu.Unlock()
	rep, err := v.run(ctx, req)
	v.mu.Lock()
	delete(v.inflight, req.ID)
	v.mu.Unlock()
	rep.ID = req.ID
	switch {
	case err == nil:
	case errors.Is(err, impl.ErrNotOwner), errors.Is(err, impl.ErrNotObtained):
		rep.Status = StatusFail
		rep.Interrupted = errors.Is(context.Cause(ctx), errInterrupted)
	default:
		var rerr redis.Error
		rep = Reply{ID: req.ID, Status: StatusError, Error: err.Error(), RedisError: errors.As(err, &rerr) && !errors.Is(err, redis.Nil)}
	}
	return rep
}

func (v *server) run(ctx context.Context, req Request) (Reply, error) {
	ok := Reply{Status: StatusOK}
	if req.Op == OpHello {
		return ok, v.hello(ctx, req)
	}
	if v.maker == nil {
		return Reply{}, errors.New("no hello yet")
	}
	h := v.handle(req.Owner, req.Name)
	ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
	var err error
	switch req.Op {
	case OpLock:
		err = h.Lock(ctx, ms(req.LeaseMS))
	case OpTryLock:
		var got bool
		got, err = h.TryLock(ctx, ms(req.WaitMS), ms(req.LeaseMS))
		if err == nil && !got {
			return Reply{Status: StatusFail}, nil
		}
	case OpUnlock:
		err = h.Unlock(ctx)
	case OpHoldCount:
		hc, can := h.(impl.HoldCounter)
		if !can {
			return Reply{}, errors.New("holdcount: not supported")
		}
		ok.Count, err = hc.HoldCount(ctx)
		return ok, err
	case OpToken:
	default:
		return Reply{}, fmt.Errorf("unknown op %q", req.Op)
	}
	if f, can := h.(impl.Fenced); can && err == nil {
		ok.Token = f.Token()
	}
	return ok, err
}

func (v *server) hello(ctx context.Context, req Request) error {
	if v.maker != nil {
		return errors.New("hello twice")
	}
	if req.Protocol < MinVersion || req.Protocol > Version || len(req.Redis) == 0 {
		return fmt.Errorf("hello: protocol %d with %d addresses; want protocol %d to %d and an address", req.Protocol, len(req.Redis), MinVersion, Version)
	}
	o := &redis.Options{
		Addr: req.Redis[0], Username: req.Username, Password: req.Password, DB: req.DB,
		MaxRetries: -1, ContextTimeoutEnabled: true,
	}
	if req.ReadTimeoutMS > 0 { // the client an in-process run gives the lock
		o.ReadTimeout = time.Duration(req.ReadTimeoutMS) * time.Millisecond
		o.WriteTimeout, o.DialTimeout = o.ReadTimeout, o.ReadTimeout
	}
	v.rdb = redis.NewClient(o)
	if err := v.rdb.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	m, err := v.s.Open(time.Duration(req.WatchdogMS)*time.Millisecond, req.Seed)(ctx, v.rdb)
	if err != nil {
		return fmt.Errorf("hello: %w", err)
	}
	v.maker, v.owner = m, req.Client
	return nil
}
