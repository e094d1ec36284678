package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// ErrDriver is wrapped by every error that comes from the driver process
// rather than from the lock: it did not start, exited, did not answer in
// time, or broke the protocol. The outcome of the request is unknown and the
// process has been killed.
var ErrDriver = errors.New("driver failed")

// proc is one running driver process: one logical client. It owns two
// goroutines: the stdout reader, which ends when the process's stdout closes,
// and, inside exec, the stderr copier; kill and close end both and wait.
type proc struct {
	name   string // driver name, for messages
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan []byte   // stdout, one line at a time
	quit   chan struct{} // closed when the process is killed: stop forwarding lines
	done   chan struct{} // closed once the process exited and was waited for
	stderr *tail
	grace  time.Duration // ReplyGrace

	mu      sync.Mutex // one request at a time
	nextID  int64
	broken  error // set once the process failed: every later call returns it
	waitErr error // cmd.Wait's error, once done is closed
	banner  Banner

	sigMu  sync.Mutex
	killed bool
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
		lines: make(chan []byte, 16), quit: make(chan struct{}), done: make(chan struct{}), stderr: newTail(4096),
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

// read forwards stdout line by line until it closes, then waits for the
// process. A line longer than 1 MiB ends the stream (a broken driver).
func (p *proc) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		select {
		case p.lines <- line:
		case <-p.quit:
		}
	}
	_, _ = io.Copy(io.Discard, stdout) // after a too-long line: drain so Wait can finish
	p.waitErr = p.cmd.Wait()
	close(p.done)
}

func (p *proc) readBanner(ctx context.Context) error {
	line, err := p.next(ctx, nil)
	if err != nil {
		return fmt.Errorf("%w: %s: no banner: %w", ErrDriver, p.name, err)
	}
	var b Banner
	if err := json.Unmarshal(line, &b); err != nil || b.Protocol == 0 || b.Driver == "" {
		return fmt.Errorf("%w: %s: first line is not a banner: %.200q", ErrDriver, p.name, line)
	}
	if b.Protocol != Version {
		return fmt.Errorf("%w: %s speaks protocol %d, lockcheck speaks %d", ErrDriver, p.name, b.Protocol, Version)
	}
	p.banner = b
	return nil
}

// next returns the next stdout line, or an error when the process exits,
// ctx ends or timeout (if not nil) fires first.
func (p *proc) next(ctx context.Context, timeout <-chan time.Time) ([]byte, error) {
	select {
	case line := <-p.lines:
		return line, nil
	case <-p.done:
		select {
		case line := <-p.lines: // printed just before it exited
			return line, nil
		default:
		}
		return nil, p.exitError()
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	case <-timeout:
		return nil, errNoReply
	}
}

var errNoReply = errors.New("no reply in time")

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

// call sends req and waits for its reply: until ctx's deadline (told to the
// driver as timeout_ms; def when ctx has none) plus the grace. ctx's
// cancellation (not its deadline) ends the wait at once. Any failure kills
// the process; later calls then fail with the same error.
func (p *proc) call(ctx context.Context, req Request, def time.Duration) (Reply, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken != nil {
		return Reply{}, p.broken
	}
	p.nextID++
	req.ID = p.nextID
	budget := def
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
	}
	req.TimeoutMS = max(millis(budget), 1)
	rep, err := p.roundTrip(ctx, req, budget+p.grace)
	if err != nil {
		p.broken = fmt.Errorf("%w: %s: %s: %w", ErrDriver, p.name, req.describe(), err)
		p.kill()
		return Reply{}, p.broken
	}
	return rep, nil
}

func (p *proc) roundTrip(ctx context.Context, req Request, wait time.Duration) (Reply, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return Reply{}, err
	}
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		return Reply{}, fmt.Errorf("write request: %w", err)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	// The deadline of ctx is the driver's to keep (timeout_ms); only a
	// cancellation ends the wait before the grace runs out.
	waitCtx := ctx
	if ctx.Err() == nil {
		var cancel context.CancelFunc
		waitCtx, cancel = cancelOnly(ctx)
		defer cancel()
	}
	line, err := p.next(waitCtx, timer.C)
	if err != nil {
		if errors.Is(err, errNoReply) {
			return Reply{}, fmt.Errorf("no reply within %v", wait.Round(time.Millisecond))
		}
		return Reply{}, err
	}
	var rep Reply
	if err := json.Unmarshal(line, &rep); err != nil {
		return Reply{}, fmt.Errorf("garbage on stdout: %.200q", line)
	}
	switch {
	case rep.ID != req.ID:
		return Reply{}, fmt.Errorf("reply to request %d while %d was due: %.200q", rep.ID, req.ID, line)
	case rep.Status != StatusOK && rep.Status != StatusFail && rep.Status != StatusError:
		return Reply{}, fmt.Errorf("reply with unknown status %q", rep.Status)
	}
	return rep, nil
}

// cancelOnly returns a context that ends when parent is cancelled, but not
// when parent's deadline passes.
func cancelOnly(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(parent))
	stop := context.AfterFunc(parent, func() {
		if !errors.Is(parent.Err(), context.DeadlineExceeded) {
			cancel(context.Cause(parent))
		}
	})
	return ctx, func() { stop(); cancel(nil) }
}

// signal sends sig to the driver's process group (a wrapper's children
// included). It is a no-op once the process was killed.
func (p *proc) signal(sig syscall.Signal) error {
	p.sigMu.Lock()
	defer p.sigMu.Unlock()
	if p.killed {
		return nil
	}
	if sig == syscall.SIGKILL {
		p.killed = true
		close(p.quit)
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
