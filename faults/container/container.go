// Package container runs Redis in a container (testcontainers-go) on
// machines that have a Docker engine but no redis-server binary. It is a
// separate package so that importing faults does not pull in the Docker
// client.
package container

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"
	tcredis "github.com/testcontainers/testcontainers-go/modules/redis"

	"github.com/lockcheck/lockcheck/faults"
)

// DefaultImage is the Redis image Start runs when none is given.
const DefaultImage = "redis:7"

// ErrNoEngine is wrapped by Available's and Start's errors when no Docker
// engine is reachable (no socket, no DOCKER_HOST, engine down).
var ErrNoEngine = errors.New("no Docker engine reachable")

// Redis is a Redis lockcheck started and can connect to: a *faults.Server
// (local redis-server process) or a *Container.
type Redis interface {
	// Addr is the host:port clients dial.
	Addr() string
	// Options are go-redis options with MaxRetries -1 and ctx deadlines
	// honoured.
	Options() *redis.Options
	// Close stops it and removes what it created.
	Close() error
}

var (
	_ Redis = (*faults.Server)(nil)
	_ Redis = (*Container)(nil)
)

// Available reports nil when a Docker engine answers a health check within
// ctx, and otherwise an error wrapping ErrNoEngine that says why.
func Available(ctx context.Context) (err error) {
	defer func() {
		// The provider panics on some broken setups.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrNoEngine, r)
		}
	}()
	p, err := testcontainers.NewDockerProvider()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	defer p.Close()
	if err := p.Health(ctx); err != nil {
		return fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	return nil
}

// Container is Redis running in a container that Start started. Close
// terminates and removes it.
type Container struct {
	c    *tcredis.RedisContainer
	addr string
}

// Start runs image (DefaultImage if empty) and waits until Redis accepts
// connections. The engine must be able to pull the image.
func Start(ctx context.Context, image string) (*Container, error) {
	if image == "" {
		image = DefaultImage
	}
	if err := Available(ctx); err != nil {
		return nil, err
	}
	c, err := tcredis.Run(ctx, image)
	if err != nil {
		if c != nil {
			_ = testcontainers.TerminateContainer(c)
		}
		return nil, fmt.Errorf("run %s: %w", image, err)
	}
	host, err := c.Host(ctx)
	if err == nil {
		var port string
		p, perr := c.MappedPort(ctx, "6379/tcp")
		if perr == nil {
			port = p.Port()
			return &Container{c: c, addr: host + ":" + port}, nil
		}
		err = perr
	}
	return nil, errors.Join(fmt.Errorf("container address: %w", err), testcontainers.TerminateContainer(c))
}

// Addr is the host:port the container's Redis is published on.
func (c *Container) Addr() string { return c.addr }

// Options returns go-redis options for the container's Redis, with no hidden
// retries, ctx deadlines honoured and 1 s timeouts.
func (c *Container) Options() *redis.Options {
	return &redis.Options{
		Addr: c.addr, MaxRetries: -1, ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
	}
}

// Close terminates and removes the container.
func (c *Container) Close() error { return testcontainers.TerminateContainer(c.c) }

// StartRedis starts Redis the best way this machine allows: a redis-server
// process (faults.StartServer with cfg) when the binary is found, otherwise a
// container of DefaultImage when a Docker engine is reachable. The container
// ignores cfg (its Redis has the image's defaults: no faults on the process,
// persistence as the image has it). When neither works the error wraps
// faults.ErrNoRedisServer and ErrNoEngine.
func StartRedis(ctx context.Context, cfg faults.ServerConfig) (Redis, error) {
	s, err := faults.StartServer(ctx, cfg)
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, faults.ErrNoRedisServer) {
		return nil, err
	}
	c, cerr := Start(ctx, DefaultImage)
	if cerr != nil {
		return nil, errors.Join(err, cerr)
	}
	return c, nil
}
