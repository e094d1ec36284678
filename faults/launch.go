package faults

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// A Launcher runs the redis-server (or valkey-server) process of a Server:
// on this machine (ProcessLauncher, the default) or somewhere else that
// behaves like a process — faults/container runs it in a container. A
// Server calls Launch once per start (its first and every restart) with
// the same binary, arguments and data directory.
type Launcher interface {
	// Launch starts spec and returns it running; ctx bounds the start
	// only, never the life of what it started.
	Launch(ctx context.Context, spec LaunchSpec) (Proc, error)
	// Name says where servers run, for the record ("process",
	// "container <image>").
	Name() string
}

// LaunchSpec is one start of a server.
type LaunchSpec struct {
	// Bin is the server binary, an absolute path on this machine.
	Bin string
	// Args are its arguments; absolute paths among them (the config file,
	// the data directory) must be reachable where it runs.
	Args []string
	// Dir is its data directory (and working directory).
	Dir string
	// Env is extra environment (the clock shim's).
	Env []string
	// Output receives what the process prints (its log goes to Dir).
	Output io.Writer
}

// Proc is one running server started by a Launcher.
type Proc interface {
	// Signal delivers SIGSTOP (freeze), SIGCONT (thaw), SIGTERM (graceful
	// stop) or SIGKILL. A proc that has exited returns os.ErrProcessDone.
	Signal(sig syscall.Signal) error
	// Exited is closed once the process has exited and been reaped.
	Exited() <-chan struct{}
	// PID is its process id as this machine sees it (0: unknown).
	PID() int
}

// Engine is how a run's servers run: which binary, launched by what. A
// command puts it in the ctx (WithEngine); StartServer (and so every
// Sentinel, Cluster and Nodes topology) started with that ctx follows it
// where its ServerConfig leaves Bin or Launcher empty, and a run records
// Server, Version and Launcher.Name().
type Engine struct {
	// Server names the server ("redis-7.0", "valkey-8.1").
	Server string
	// Version is what the binary's --version says ("8.1.8").
	Version string
	// Bin is the server binary, an absolute path.
	Bin string
	// Launcher runs it (nil: ProcessLauncher).
	Launcher Launcher
}

type engineKey struct{}

// WithEngine returns ctx carrying e.
func WithEngine(ctx context.Context, e Engine) context.Context {
	return context.WithValue(ctx, engineKey{}, e)
}

// EngineFrom returns the Engine ctx carries, and whether it carries one.
func EngineFrom(ctx context.Context) (Engine, bool) {
	e, ok := ctx.Value(engineKey{}).(Engine)
	return e, ok
}

// launcherFrom returns the Launcher of ctx's Engine, or ProcessLauncher.
func launcherFrom(ctx context.Context) Launcher {
	if e, ok := EngineFrom(ctx); ok && e.Launcher != nil {
		return e.Launcher
	}
	return ProcessLauncher{}
}

// ProcessLauncher runs servers as child processes of this one, each in its
// own process group and killed with it if it dies (Pdeathsig).
type ProcessLauncher struct{}

// Name is "process".
func (ProcessLauncher) Name() string { return "process" }

// Launch starts spec as a child process.
func (ProcessLauncher) Launch(_ context.Context, spec LaunchSpec) (Proc, error) {
	cmd := exec.Command(spec.Bin, spec.Args...)
	cmd.Dir = spec.Dir
	if len(spec.Env) > 0 {
		cmd.Env = append(os.Environ(), spec.Env...)
	}
	// Own process group (so a terminal's Ctrl-C does not reach it first) and
	// die with us if we die without cleaning up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = spec.Output, spec.Output
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() { // owned by p: ends when the process exits
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

type process struct {
	cmd    *exec.Cmd
	exited chan struct{}
}

func (p *process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }
func (p *process) Exited() <-chan struct{}         { return p.exited }
func (p *process) PID() int                        { return p.cmd.Process.Pid }

// syncBuffer is a bytes.Buffer safe for a process's writes and our reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
