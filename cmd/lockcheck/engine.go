package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/container"
	"github.com/lockcheck/lockcheck/faults/servers"
)

// engineFlags choose the server lockcheck starts and where it runs: the
// --server axis and the --backend (with --image).
type engineFlags struct {
	server  string
	backend string
	image   string
}

func (f *engineFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.server, "server", "", "server lockcheck starts: redis-7.0, redis-6.2 or valkey-8.1 (default: Debian's redis-server, or $REDIS_SERVER; make deps fetches the others)")
	fs.StringVar(&f.backend, "backend", "process", "where lockcheck's servers run: process, or container (a Docker engine runs an image built here, FROM scratch, from the server's binary)")
	fs.StringVar(&f.image, "image", "", "with --backend container: run this image instead of the one built here (an upstream image, e.g. redis:7, which the engine may pull)")
}

// args are the flags again, for a command line that repeats a run (""
// for the defaults), each with a leading space.
func (f *engineFlags) args() string {
	var s string
	if f.server != "" {
		s += " --server " + f.server
	}
	if f.backend != "process" && f.backend != "" {
		s += " --backend " + f.backend
	}
	if f.image != "" {
		s += " --image " + f.image
	}
	return s
}

// engineRecord describes the server and backend ctx carries, for the
// record: "valkey-8.1 (valkey-server 8.1.8), backend container"; "" when it
// carries none.
func engineRecord(ctx context.Context) string {
	e, ok := faults.EngineFrom(ctx)
	if !ok {
		return ""
	}
	backend := "process"
	if e.Launcher != nil {
		backend = e.Launcher.Name()
	}
	return fmt.Sprintf("%s (%s %s), backend %s", e.Server, filepath.Base(e.Bin), e.Version, backend)
}

// check rejects what the flags cannot mean, before anything starts.
func (f *engineFlags) check() error {
	switch f.backend {
	case "process", "container":
	default:
		return usagef("--backend %q: want process or container", f.backend)
	}
	if f.image != "" && f.backend != "container" {
		return usagef("--image %s: only with --backend container", f.image)
	}
	if err := servers.Check(f.server); err != nil {
		return usagef("--server: %v", err)
	}
	return nil
}

// open resolves the server and the backend and returns ctx carrying them
// (faults.WithEngine: every server the command starts follows it), and
// what closes the backend. A server that is not installed, or a container
// backend with no engine, is a usage error naming what to do.
func (f *engineFlags) open(ctx context.Context, stderr io.Writer, remote bool) (context.Context, func() error, error) {
	if remote {
		return ctx, func() error { return nil }, nil // a Redis lockcheck does not start
	}
	srv, err := servers.Resolve(ctx, f.server)
	if err != nil {
		return ctx, nil, usagef("--server: %v", err)
	}
	e := faults.Engine{Server: srv.Name, Version: srv.Version, Bin: srv.Bin}
	closeFn := func() error { return nil }
	if f.backend == "container" {
		l, err := container.NewLauncher(ctx, f.image)
		if err != nil {
			return ctx, nil, usagef("--backend container: %v", err)
		}
		img, err := l.Image(ctx, srv.Bin)
		if err != nil {
			return ctx, nil, errors.Join(usagef("--backend container: %v", err), l.Close())
		}
		fmt.Fprintf(stderr, "lockcheck: servers run in containers of %s\n", img.Tag)
		e.Launcher, closeFn = l, l.Close
	}
	fmt.Fprintf(stderr, "lockcheck: server %s, backend %s\n", srv, f.backend)
	return faults.WithEngine(ctx, e), closeFn, nil
}
