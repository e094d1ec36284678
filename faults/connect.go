package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBadRedisAddr is returned by ParseRedisAddr for input it cannot use.
var ErrBadRedisAddr = errors.New("faults: bad Redis address")

// RedisAddr is an existing Redis the user pointed lockcheck at, instead of a
// redis-server it starts itself. Its String (and Redacted) form never
// contains the password.
type RedisAddr struct {
	opts *redis.Options
}

// ParseRedisAddr parses a Redis address given by a user:
//
//	host:port
//	redis://[[user]:password@]host[:port][/db][?options]
//	rediss://...   (TLS; ?skip_verify=true to skip certificate checks)
//	unix:///path/to/redis.sock[?db=N]
//
// Query options are go-redis's (see redis.ParseURL). Whatever the input says,
// the resulting options have MaxRetries -1 (no hidden retries of lock
// scripts) and ContextTimeoutEnabled (ctx deadlines reach the socket). The
// error wraps ErrBadRedisAddr and never repeats the input, which may hold a
// password.
func ParseRedisAddr(s string) (*RedisAddr, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: empty (want host:port, redis://, rediss:// or unix://)", ErrBadRedisAddr)
	}
	var opts *redis.Options
	if strings.Contains(s, "://") {
		o, err := redis.ParseURL(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", ErrBadRedisAddr, urlErrorReason(err))
		}
		opts = o
	} else {
		host, port, err := net.SplitHostPort(s)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not host:port or a redis:// URL", ErrBadRedisAddr, s)
		}
		if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
			return nil, fmt.Errorf("%w: port %q of %q is not a number in 1-65535", ErrBadRedisAddr, port, s)
		}
		if host == "" {
			host = "127.0.0.1"
		}
		opts = &redis.Options{Addr: net.JoinHostPort(host, port)}
	}
	opts.MaxRetries = -1
	opts.ContextTimeoutEnabled = true
	return &RedisAddr{opts: opts}, nil
}

// urlErrorReason drops the URL (and so the password) from a parse error.
func urlErrorReason(err error) string {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return "invalid URL: " + uerr.Err.Error()
	}
	return err.Error()
}

// Options returns a copy of the go-redis options.
func (a *RedisAddr) Options() *redis.Options {
	o := *a.opts
	if a.opts.TLSConfig != nil {
		o.TLSConfig = a.opts.TLSConfig.Clone()
	}
	return &o
}

// HasPassword reports whether the address carries a password.
func (a *RedisAddr) HasPassword() bool { return a.opts.Password != "" }

// WithPassword returns a copy of a that authenticates with password (and
// a's username, if any). a is not changed.
func (a *RedisAddr) WithPassword(password string) *RedisAddr {
	o := a.Options()
	o.Password = password
	return &RedisAddr{opts: o}
}

// TLS reports whether the connection uses TLS (rediss://).
func (a *RedisAddr) TLS() bool { return a.opts.TLSConfig != nil }

// Redacted returns the address as a URL with the password replaced by ***,
// e.g. rediss://app:***@cache:6380/2.
func (a *RedisAddr) Redacted() string {
	u := url.URL{Scheme: "redis", Host: a.opts.Addr}
	if a.opts.Network == "unix" {
		u = url.URL{Scheme: "unix", Path: a.opts.Addr}
	} else if a.TLS() {
		u.Scheme = "rediss"
	}
	switch {
	case a.opts.Password != "":
		u.User = url.UserPassword(a.opts.Username, "***")
	case a.opts.Username != "":
		u.User = url.User(a.opts.Username)
	}
	if a.opts.DB != 0 {
		if u.Scheme == "unix" {
			u.RawQuery = "db=" + strconv.Itoa(a.opts.DB)
		} else {
			u.Path = "/" + strconv.Itoa(a.opts.DB)
		}
	}
	// url.URL escapes '*' in passwords; keep the marker readable.
	return strings.Replace(u.String(), ":%2A%2A%2A@", ":***@", 1)
}

// String is Redacted.
func (a *RedisAddr) String() string { return a.Redacted() }

// DefaultPingTimeout bounds Connect's PING when ctx has no deadline.
const DefaultPingTimeout = 5 * time.Second

// Connect opens a client and checks it with PING, bounded by ctx or, when ctx
// has no deadline, by DefaultPingTimeout. On failure the client is closed and
// the error names the redacted address.
func (a *RedisAddr) Connect(ctx context.Context) (*redis.Client, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultPingTimeout)
		defer cancel()
	}
	rdb := redis.NewClient(a.Options())
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("faults: PING %s: %w", a.Redacted(), scrub(err, a.opts.Password))
	}
	return rdb, nil
}

// scrub makes sure an error text never carries the password.
func scrub(err error, password string) error {
	if password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), password, "***"))
}
