package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	ctypes "github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/lockcheck/lockcheck/faults"
)

// ErrUnsupported is wrapped by Launch's error for what a container cannot
// run: the clock shim (clock faults need the process backend).
var ErrUnsupported = errors.New("not supported in a container")

// ownerLabel carries faults.OwnerTag() of the lockcheck that started a
// container: Sweep removes the containers of processes that are gone.
const ownerLabel = "lockcheck.owner"

// engineTimeout bounds each engine call that has no deadline of its own.
const engineTimeout = 30 * time.Second

// Launcher runs servers in containers (a faults.Launcher): each start of a
// faults.Server is a new container of the server's image, with host
// networking (the server binds the loopback address and port its Server
// chose), the data directory and config file bind-mounted at the same
// paths, this process's uid and gid, and the label lockcheck.owner. Pause
// and resume freeze and thaw the container (the cgroup freezer); kill and
// stop signal it; an exited container is removed. Close closes the engine
// client; it does not stop the servers (their Servers do).
type Launcher struct {
	cli   *testcontainers.DockerClient
	image string // the user's --image; "" : one built here per binary

	mu     sync.Mutex
	images map[string]Image // binary → its image
}

// NewLauncher connects to the engine (an error wrapping ErrNoEngine when
// none answers within ctx) and sweeps the containers dead lockcheck runs
// left behind. image, if set, is run for every server (an upstream image
// the user named, which the engine may pull); otherwise each binary's
// image is built here (EnsureImage).
func NewLauncher(ctx context.Context, image string) (*Launcher, error) {
	if err := Available(ctx); err != nil {
		return nil, err
	}
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	l := &Launcher{cli: cli, image: image, images: map[string]Image{}}
	if _, err := Sweep(ctx, cli); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return l, nil
}

// Close closes the engine client.
func (l *Launcher) Close() error { return l.cli.Close() }

// Name is "container" and the image, when one was named.
func (l *Launcher) Name() string {
	if l.image != "" {
		return "container " + l.image
	}
	return "container"
}

// Image returns the image bin runs in, building it when needed.
func (l *Launcher) Image(ctx context.Context, bin string) (Image, error) {
	if l.image != "" {
		return Image{Tag: l.image, Entrypoint: filepath.Base(bin)}, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if img, ok := l.images[bin]; ok {
		return img, nil
	}
	img, err := EnsureImage(ctx, l.cli, bin)
	if err != nil {
		return Image{}, err
	}
	l.images[bin] = img
	return img, nil
}

// Launch runs spec in a new container and returns once it is running.
func (l *Launcher) Launch(ctx context.Context, spec faults.LaunchSpec) (faults.Proc, error) {
	if len(spec.Env) > 0 {
		return nil, fmt.Errorf("clock shim: %w (use the process backend)", ErrUnsupported)
	}
	img, err := l.Image(ctx, spec.Bin)
	if err != nil {
		return nil, err
	}
	cfg := &ctypes.Config{
		Image:      img.Tag,
		Cmd:        append([]string{img.Entrypoint}, spec.Args...),
		WorkingDir: spec.Dir,
		User:       fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid()),
		Labels:     map[string]string{ownerLabel: faults.OwnerTag(), "lockcheck.bin": spec.Bin},
	}
	host := &ctypes.HostConfig{NetworkMode: "host", Binds: binds(spec)}
	created, err := l.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: host})
	if err != nil {
		return nil, fmt.Errorf("create container of %s: %w", img.Tag, err)
	}
	p := &proc{cli: l.cli, id: created.ID, exited: make(chan struct{})}
	if _, err := l.cli.ContainerStart(ctx, p.id, client.ContainerStartOptions{}); err != nil {
		p.remove()
		return nil, fmt.Errorf("start container of %s: %w", img.Tag, err)
	}
	if info, err := l.cli.ContainerInspect(ctx, p.id, client.ContainerInspectOptions{}); err == nil && info.Container.State != nil {
		p.pid = info.Container.State.Pid
	}
	wait := l.cli.ContainerWait(context.WithoutCancel(ctx), p.id, client.ContainerWaitOptions{Condition: ctypes.WaitConditionNotRunning})
	go p.watch(wait) // owned by p: ends when the container stops
	return p, nil
}

// binds mounts the data directory, and every absolute path among the
// arguments (a config file's directory), at the same paths.
func binds(spec faults.LaunchSpec) []string {
	dirs := map[string]bool{spec.Dir: true}
	for _, a := range spec.Args {
		if !filepath.IsAbs(a) {
			continue
		}
		if fi, err := os.Stat(a); err == nil {
			if fi.IsDir() {
				dirs[a] = true
			} else {
				dirs[filepath.Dir(a)] = true
			}
		}
	}
	var out []string
	for d := range dirs {
		if d != "" {
			out = append(out, d+":"+d)
		}
	}
	sort.Strings(out)
	return out
}

// proc is one server container.
type proc struct {
	cli    *testcontainers.DockerClient
	id     string
	pid    int
	exited chan struct{}

	mu     sync.Mutex
	paused bool
}

func (p *proc) Exited() <-chan struct{} { return p.exited }
func (p *proc) PID() int                { return p.pid }

// Where is "container <id>", for fault windows (faults.Server.Target).
func (p *proc) Where() string { return fmt.Sprintf("container %.12s", p.id) }

// Signal pauses (SIGSTOP) or unpauses (SIGCONT) the container, or sends
// it SIGTERM or SIGKILL (thawing it first: a frozen process takes no
// signal). Each engine call is bounded by engineTimeout.
func (p *proc) Signal(sig syscall.Signal) error {
	select {
	case <-p.exited:
		return os.ErrProcessDone
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
	defer cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	var err error
	switch sig {
	case syscall.SIGSTOP:
		if _, err = p.cli.ContainerPause(ctx, p.id, client.ContainerPauseOptions{}); err == nil {
			p.paused = true
		}
	case syscall.SIGCONT:
		if !p.paused {
			return nil
		}
		if _, err = p.cli.ContainerUnpause(ctx, p.id, client.ContainerUnpauseOptions{}); err == nil {
			p.paused = false
		}
	default:
		if p.paused {
			_, _ = p.cli.ContainerUnpause(ctx, p.id, client.ContainerUnpauseOptions{})
			p.paused = false
		}
		_, err = p.cli.ContainerKill(ctx, p.id, client.ContainerKillOptions{Signal: strconv.Itoa(int(sig))})
	}
	if err != nil {
		select {
		case <-p.exited:
			return os.ErrProcessDone
		default:
		}
		return fmt.Errorf("container %.12s: %v: %w", p.id, sig, err)
	}
	return nil
}

// watch waits for the container to stop, removes it and closes exited.
func (p *proc) watch(wait client.ContainerWaitResult) {
	defer close(p.exited)
	select {
	case <-wait.Result:
	case <-wait.Error:
		// The engine connection broke: poll until the container is gone
		// or not running, so that exited still means exited.
		p.pollStopped()
	}
	p.remove()
}

func (p *proc) pollStopped() {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
		info, err := p.cli.ContainerInspect(ctx, p.id, client.ContainerInspectOptions{})
		cancel()
		if err != nil || info.Container.State == nil || !info.Container.State.Running {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *proc) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), engineTimeout)
	defer cancel()
	_, _ = p.cli.ContainerRemove(ctx, p.id, client.ContainerRemoveOptions{Force: true})
}
