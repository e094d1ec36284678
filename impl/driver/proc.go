package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// ErrDriver is wrapped by every error that comes from the driver process
// rather than from the lock: it did not start, exited, did not answer in
// time, or broke the protocol. The outcome of the request is unknown and the
// process has been killed. It wraps impl.ErrAdapter, which the harness
// tests for.
var ErrDriver error = driverFailed{}

type driverFailed struct{}

func (driverFailed) Error() string { return "driver failed" }
func (driverFailed) Unwrap() error { return impl.ErrAdapter }

// proc is one running driver process: one logical client, or with
// CapOwners several owners sharing it. It owns two goroutines: the stdout
// reader, which routes each reply to the call waiting for its id and ends
// when the process's stdout closes, and, inside exec, the stderr copier;
// kill and close end both and wait.
type proc struct {
	name   string // driver name, for messages
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	first  chan []byte   // the banner line
	done   chan struct{} // closed once the process exited and was waited for
	failed chan struct{} // closed when broken is set
	stderr *tail
	grace  time.Duration // ReplyGrace

	wmu sync.Mutex // one request line written at a time

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan Reply // calls waiting for their reply, by id
	broken  error                // set once the process failed: every later call returns it
	waitErr error                // cmd.Wait's error, once done is closed
	banner  Banner
	shared  bool     // hello announced owners: requests name theirs
	owners  []string // the owners it hosts, for OnStall

	onStall func(owners []string, start, end time.Time) // Options.OnStall

	sigMu  sync.Mutex
	killed bool
	frozen frozenClock // time spent stopped (SIGSTOP): not counted against replies
}

// startProc starts argv in a process group of its own, as owner's process
// ("" : no owner's), and reads its banner within ctx.
func startProc(ctx context.Context, o *Options, owner string) (*proc, error) {
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Dir = o.Dir
	cmd.Env = append(cmd.Environ(), o.Env...)
	if o.OwnerEnv != nil && owner != "" {
		cmd.Env = append(cmd.Env, o.OwnerEnv(owner)...)
	}
	// Its own process group, so that stalls and crashes reach a wrapper's
	// children too; killed with lockcheck (a stopped driver would never
	// read the end of its input).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second // a grandchild holding stderr open cannot block Wait
	p := &proc{
		name: o.name(), cmd: cmd, grace: o.ReplyGrace,
		first: make(chan []byte, 1), done: make(chan struct{}), failed: make(chan struct{}),
		stderr: newTail(4096), pending: map[int64]chan Reply{}, onStall: o.OnStall,
	}
	cmd.Stderr = p.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start %s: %w", ErrDriver, p.name, err)
	}
	p.stdin = stdin
	go p.read(stdout)
	if err := p.readBanner(ctx); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// read hands the first stdout line to readBanner and routes every later one
// (route) until stdout closes, then waits for the process. A line longer
// than 1 MiB ends the stream (a broken driver).
func (p *proc) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if sc.Scan() {
		p.first <- append([]byte(nil), sc.Bytes()...)
	}
	for sc.Scan() {
		p.route(sc.Bytes())
	}
	_, _ = io.Copy(io.Discard, stdout) // after a too-long line: drain so Wait can finish
	p.waitErr = p.cmd.Wait()
	close(p.done)
}

// route delivers one reply line to the call waiting for its id. A line that
// is no reply, or answers no pending request, breaks the process: every
// owner's call fails with it.
func (p *proc) route(line []byte) {
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		p.fail(fmt.Errorf("garbage on stdout: %.200q", line))
		return
	}
	if len(rep.Stalls) > 0 {
		p.reportStalls(rep.Stalls)
	}
	p.mu.Lock()
	ch, ok := p.pending[rep.ID]
	delete(p.pending, rep.ID)
	p.mu.Unlock()
	switch {
	case !ok:
		p.fail(fmt.Errorf("reply to request %d, which is not due: %.200q", rep.ID, line))
	case rep.Status != StatusOK && rep.Status != StatusFail && rep.Status != StatusError:
		p.fail(fmt.Errorf("reply to request %d with unknown status %q", rep.ID, rep.Status))
	default:
		ch <- rep // buffered: the call may have given up
	}
}

// addOwner notes that the process hosts owner.
func (p *proc) addOwner(owner string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.owners = append(p.owners, owner)
}

// reportStalls tells onStall of the stalls a reply carried, as times of
// this process's clock, with the owners the process hosts.
func (p *proc) reportStalls(stalls [][2]int64) {
	p.mu.Lock()
	owners := slices.Clone(p.owners)
	p.mu.Unlock()
	if p.onStall == nil || len(owners) == 0 {
		return
	}
	clock, err := newMonoClock()
	if err != nil {
		return
	}
	for _, s := range stalls {
		p.onStall(owners, clock.at(s[0]), clock.at(s[1]))
	}
}

// fail marks the process broken by err (the first failure wins) and sends
// it SIGKILL without waiting (route calls it from the reader).
func (p *proc) fail(err error) {
	p.mu.Lock()
	if p.broken == nil {
		p.broken = fmt.Errorf("%w: %s: %w", ErrDriver, p.name, err)
		close(p.failed)
	}
	p.mu.Unlock()
	_ = p.signal(syscall.SIGKILL)
}

func (p *proc) readBanner(ctx context.Context) error {
	var line []byte
	select {
	case line = <-p.first:
	case <-p.done:
		select {
		case line = <-p.first: // printed just before it exited
		default:
			return fmt.Errorf("%w: %s: no banner: %w", ErrDriver, p.name, p.exitError())
		}
	case <-ctx.Done():
		return fmt.Errorf("%w: %s: no banner: %w", ErrDriver, p.name, context.Cause(ctx))
	}
	var b Banner
	if err := json.Unmarshal(line, &b); err != nil || b.Protocol == 0 || b.Driver == "" {
		return fmt.Errorf("%w: %s: first line is not a banner: %.200q", ErrDriver, p.name, line)
	}
	if b.Protocol < MinVersion || b.Protocol > Version {
		return fmt.Errorf("%w: %s speaks protocol %d, lockcheck speaks %d to %d", ErrDriver, p.name, b.Protocol, MinVersion, Version)
	}
	p.banner = b
	return nil
}

// dead reports whether the process failed or exited.
func (p *proc) dead() bool {
	select {
	case <-p.done:
		return true
	default:
		return p.err() != nil
	}
}

// exitError describes how the process ended, with the end of its stderr.
func (p *proc) exitError() error {
	msg := "exited"
	if p.waitErr != nil {
		msg = "exited: " + p.waitErr.Error()
	}
	if t := p.stderr.String(); t != "" {
		msg += "; stderr: " + t
	}
	return errors.New(msg)
}

// signal sends sig to the driver's process group (a wrapper's children
// included). It is a no-op once the process was killed.
func (p *proc) signal(sig syscall.Signal) error {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if p.killed {
		return nil
	}
	switch sig {
	case syscall.SIGKILL:
		p.killed = true
	case syscall.SIGSTOP:
		p.frozen.stop(time.Now())
	case syscall.SIGCONT:
		p.frozen.cont(time.Now())
	}
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to driver %s: %w", sig, p.name, err)
	}
	return nil
}

// kill SIGKILLs the process group and waits until the process was reaped.
func (p *proc) kill() {
	_ = p.signal(syscall.SIGKILL)
	_ = p.stdin.Close()
	<-p.done
}

// close ends the driver the polite way: it is let go (SIGCONT, in case it
// is frozen), its stdin closed, and it gets exitWait to exit before it is
// killed. It reports an exit that was not clean.
func (p *proc) close(exitWait time.Duration) error {
	_ = p.signal(syscall.SIGCONT)
	_ = p.stdin.Close()
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.kill()
		return fmt.Errorf("driver %s did not exit within %v of the end of its input; killed", p.name, exitWait)
	}
	p.sigMu.Lock()
	killed := p.killed
	p.sigMu.Unlock()
	if p.waitErr != nil && !killed {
		return fmt.Errorf("driver %s: %w", p.name, p.exitError())
	}
	return nil
}

// tail keeps the last bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newTail(n int) *tail { return &tail{max: n} }

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String returns the kept bytes, trimmed of surrounding space.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.buf)
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}
