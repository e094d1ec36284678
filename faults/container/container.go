// Package container runs lockcheck's servers in containers (testcontainers-go
// reaching a Docker engine): a Launcher that faults.Server uses instead of a
// local process, the images it runs (built here, FROM scratch, from the
// binaries this machine has: never pulled), and the sweep of what a dead run
// left. It is a separate package so that importing faults does not pull in
// the Docker client.
package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/moby/moby/client"
	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/lockcheck/lockcheck/faults"
)

// quietOnce guards Quiet.
var quietOnce sync.Once

// Quiet sets testcontainers up the way lockcheck uses it, once per process:
// the CLI calls it when it assembles itself, and Available (which every
// entry point calls first) calls it before this package's first call into
// testcontainers, so a caller that does not still gets it. Ryuk, testcontainers' reaper, is an image the engine would have
// to pull: lockcheck never starts it (it runs no GenericContainer) and
// sweeps its own containers (Sweep), so TESTCONTAINERS_RYUK_DISABLED says so
// too, unless the user chose. testcontainers' banner would break
// lockcheck's output: lockcheck says which engine and image it uses itself.
func Quiet() {
	quietOnce.Do(func() {
		if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
			_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
		}
		tclog.SetDefault(tclog.NewNoopLogger())
	})
}

// ErrNoEngine is wrapped by Available's and Start's errors when no Docker
// engine is reachable (no socket, no DOCKER_HOST, engine down).
var ErrNoEngine = errors.New("no Docker engine reachable")

// ErrNoImage is wrapped by StartRedis's error when there is neither a
// server binary to build an image from nor an image built before.
var ErrNoImage = errors.New("no server image: lockcheck builds one from a redis-server binary (make deps), or name one with --image")

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
	_ Redis           = (*faults.Server)(nil)
	_ Redis           = (*Container)(nil)
	_ faults.Launcher = (*Launcher)(nil)
)

// Available reports nil when a Docker engine answers a health check within
// ctx, and otherwise an error wrapping ErrNoEngine that says why.
func Available(ctx context.Context) (err error) {
	Quiet()
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

// Container is a server lockcheck runs in a container: a faults.Server
// (password, loopback address, pause, kill, restart) whose process is a
// container. Close removes the container and closes its engine client.
type Container struct {
	*faults.Server
	l *Launcher
}

// Start runs a redis-server in a container and waits until it answers
// PING: image "" is the image built here from cfg.Bin (default: the
// redis-server on PATH); otherwise image is run (an upstream image, which
// the engine may pull). cfg is what faults.StartServer takes.
func Start(ctx context.Context, image string, cfg faults.ServerConfig) (*Container, error) {
	l, err := NewLauncher(ctx, image)
	if err != nil {
		return nil, err
	}
	cfg.Launcher = l
	s, err := faults.StartServer(ctx, cfg)
	if err != nil {
		return nil, errors.Join(err, l.Close())
	}
	return &Container{Server: s, l: l}, nil
}

// Close stops the server, removes its container and data directory, and
// closes the engine client.
func (c *Container) Close() error { return errors.Join(c.Server.Close(), c.l.Close()) }

// StartRedis starts Redis the best way this machine allows: a redis-server
// process (faults.StartServer with cfg) when the binary is found, otherwise
// a container of the newest image lockcheck built here before, when a
// Docker engine answers. When neither works the error wraps
// faults.ErrNoRedisServer and ErrNoEngine (or ErrNoImage).
func StartRedis(ctx context.Context, cfg faults.ServerConfig) (Redis, error) {
	s, err := faults.StartServer(ctx, cfg)
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, faults.ErrNoRedisServer) {
		return nil, err
	}
	img, ierr := LatestImage(ctx, "redis-server")
	if ierr != nil {
		return nil, errors.Join(err, ierr)
	}
	cfg.Bin = "redis-server"
	c, cerr := Start(ctx, img, cfg)
	if cerr != nil {
		return nil, errors.Join(err, cerr)
	}
	return c, nil
}

// LatestImage returns the newest image lockcheck built here for the binary
// name ("redis-server", "valkey-server"): an error wrapping ErrNoEngine or
// ErrNoImage when there is none.
func LatestImage(ctx context.Context, name string) (string, error) {
	if err := Available(ctx); err != nil {
		return "", err
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	defer cli.Close()
	list, err := cli.ImageList(ctx, client.ImageListOptions{Filters: client.Filters{}.Add("reference", imageRepoPrefix+name)})
	if err != nil {
		return "", fmt.Errorf("list images: %w", err)
	}
	items := list.Items
	sort.Slice(items, func(i, j int) bool { return items[i].Created > items[j].Created })
	for _, im := range items {
		if len(im.RepoTags) > 0 {
			return im.RepoTags[0], nil
		}
	}
	return "", fmt.Errorf("%w (none named %s%s)", ErrNoImage, imageRepoPrefix, name)
}
