package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// Served is a Go lock to serve over the protocol.
type Served struct {
	// Banner is printed first. Protocol is filled in.
	Banner Banner
	// Open returns the MakerFunc for hello's settings (watchdog lease, seed).
	Open func(watchdog time.Duration, seed int64) impl.MakerFunc
}

// Serve is a driver written in Go: it prints s's banner on out, then answers
// requests read from in, one at a time, with handles of the Maker it opens
// at hello on a go-redis client for hello's first address (no retries: the
// lock decides its own). Every handle has the owner hello names. Serve
// returns nil when in ends, and an error when in or out fails or the first
// request is not a hello. It unlocks nothing on the way out.
func Serve(ctx context.Context, in io.Reader, out io.Writer, s Served) error {
	s.Banner.Protocol = Version
	enc := json.NewEncoder(out) // one line per value
	if err := enc.Encode(s.Banner); err != nil {
		return err
	}
	srv := &server{s: s, handles: map[string]impl.Locker{}}
	defer srv.close()
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var req Request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("driver: bad request %.200q: %w", sc.Bytes(), err)
		}
		if err := enc.Encode(srv.answer(ctx, req)); err != nil {
			return err
		}
		if srv.maker == nil {
			return errors.New("driver: the first request was not a successful hello")
		}
	}
	return sc.Err()
}

// server is Serve's state: the connection and handles hello opened.
type server struct {
	s       Served
	rdb     *redis.Client
	maker   impl.Maker
	owner   string
	handles map[string]impl.Locker
}

func (v *server) close() {
	if v.maker != nil {
		_ = v.maker.Close()
	}
	if v.rdb != nil {
		_ = v.rdb.Close()
	}
}

// answer runs one request within its timeout_ms.
func (v *server) answer(ctx context.Context, req Request) Reply {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
	defer cancel()
	rep, err := v.run(ctx, req)
	rep.ID = req.ID
	switch {
	case err == nil:
	case errors.Is(err, impl.ErrNotOwner), errors.Is(err, impl.ErrNotObtained):
		rep.Status = StatusFail
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
	h, ok2 := v.handles[req.Name]
	if !ok2 {
		h = v.maker.NewLocker(req.Name, v.owner)
		v.handles[req.Name] = h
	}
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
	if req.Protocol != Version || len(req.Redis) == 0 {
		return fmt.Errorf("hello: protocol %d with %d addresses; want protocol %d and an address", req.Protocol, len(req.Redis), Version)
	}
	v.rdb = redis.NewClient(&redis.Options{
		Addr: req.Redis[0], Username: req.Username, Password: req.Password, DB: req.DB,
		MaxRetries: -1, ContextTimeoutEnabled: true,
	})
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
