package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// Persistence is how a redis-server started by lockcheck keeps its data.
type Persistence string

// The persistence modes a Server can run with.
const (
	// PersistNone keeps data in memory only: a kill loses everything.
	PersistNone Persistence = "none"
	// PersistAOFEverysec appends every write to the AOF and fsyncs once a second.
	PersistAOFEverysec Persistence = "aof-everysec"
	// PersistAOFAlways fsyncs the AOF before every reply.
	PersistAOFAlways Persistence = "aof-always"
)

// ParsePersistence parses a Persistence name ("" means PersistNone).
func ParsePersistence(s string) (Persistence, error) {
	switch p := Persistence(s); p {
	case "", PersistNone:
		return PersistNone, nil
	case PersistAOFEverysec, PersistAOFAlways:
		return p, nil
	}
	return "", fmt.Errorf("unknown persistence %q (want none, aof-everysec or aof-always)", s)
}

func (p Persistence) args() []string {
	switch p {
	case PersistAOFEverysec:
		return []string{"--appendonly", "yes", "--appendfsync", "everysec"}
	case PersistAOFAlways:
		return []string{"--appendonly", "yes", "--appendfsync", "always"}
	default:
		return []string{"--appendonly", "no"}
	}
}

// ErrNoRedisServer is returned by StartServer when no redis-server binary can
// be found.
var ErrNoRedisServer = errors.New("redis-server not found: install it (Debian/Ubuntu: apt-get install redis-server) or set REDIS_SERVER to its path")

// ServerConfig configures a redis-server started by StartServer.
type ServerConfig struct {
	// Bin is the redis-server binary. Default: the Bin of the Engine the
	// start's ctx carries (WithEngine), else $REDIS_SERVER, else
	// redis-server from PATH.
	Bin string
	// Host is the loopback address to bind. Default 127.0.0.1.
	Host string
	// Port to listen on. Default 0: a free ephemeral port chosen at start and
	// kept across restarts.
	Port int
	// Persistence mode. Default PersistNone.
	Persistence Persistence
	// Dir is the data directory. Default: a new temporary directory that
	// Close removes.
	Dir string
	// Args are extra redis-server arguments, e.g. {"--replicaof", "127.0.0.1", "6379"}.
	Args []string
	// ConfigFile, if set, is passed as redis-server's first argument (the
	// only place redis-server reads a config file from). Sentinel needs one
	// on disk, writable: it rewrites it with what it learns.
	ConfigFile string
	// StartTimeout bounds each start until the server answers PING. Default 10 s.
	StartTimeout time.Duration
	// Password is the server's requirepass, and its masterauth (a replica
	// authenticates to its master with it). Default: ProcessPassword().
	// It reaches redis-server through a config file of mode 0600 in Dir,
	// never through the command line. With ConfigFile set, that file must
	// set requirepass itself (Sentinel does, see StartSentinel); Password
	// then only tells Options what to authenticate with.
	Password string
	// Launcher runs the server process. Default: the Launcher of the
	// Engine the start's ctx carries (WithEngine), else ProcessLauncher.
	Launcher Launcher
	// ClockShim runs the server through the clock shim on a Clock of its
	// own (Server.Clock), created at start, kept across restarts and
	// removed by Close: clock faults move its wall clock, which is what
	// Redis expires keys by.
	ClockShim bool
}

// Server is a redis-server process started and owned by lockcheck. It binds a
// loopback address and port, runs in its own data directory and can be
// stopped, killed, paused, resumed and restarted on the same port and data
// directory. Close kills it and removes what it created. Methods are safe for
// concurrent use.
type Server struct {
	cfg    ServerConfig
	ownDir bool
	clock  *Clock // nil without ServerConfig.ClockShim

	mu     sync.Mutex
	proc   Proc // nil before the first start
	paused bool
	closed bool
}

// StartServer starts a redis-server and waits until it answers PING.
func StartServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.Launcher == nil {
		cfg.Launcher = launcherFrom(ctx)
	}
	cfg.Bin = serverBin(ctx, cfg)
	if _, err := exec.LookPath(cfg.Bin); err != nil {
		if _, local := cfg.Launcher.(ProcessLauncher); local {
			return nil, fmt.Errorf("%w (looked for %q)", ErrNoRedisServer, cfg.Bin)
		} // else the launcher finds it (a container image has its own)
	}
	if legacyServer(ctx, cfg.Bin) {
		cfg.Args = withoutBindSourceAddr(cfg.Args)
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Persistence == "" {
		cfg.Persistence = PersistNone
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.Password == "" {
		cfg.Password = ProcessPassword()
	}
	s := &Server{cfg: cfg}
	var err error
	if cfg.ClockShim {
		if s.clock, err = NewClock(ctx); err != nil {
			return nil, fmt.Errorf("redis-server clock: %w", err)
		}
	}
	if s.cfg.Dir == "" {
		dir, err := os.MkdirTemp("", redisDirPattern())
		if err != nil {
			s.removeDir()
			return nil, fmt.Errorf("redis-server data dir: %w", err)
		}
		s.cfg.Dir, s.ownDir = dir, true
	}
	// A free port can be taken by someone else between our probe and the
	// server's bind: retry a few times with a new port when that happens.
	pickPort := s.cfg.Port == 0
	for attempt := 0; ; attempt++ {
		if pickPort {
			if s.cfg.Port, err = freePort(s.cfg.Host); err != nil {
				s.removeDir()
				return nil, err
			}
		}
		err = s.start(ctx)
		if err == nil {
			return s, nil
		}
		if !pickPort || attempt >= 4 || ctx.Err() != nil || !errors.Is(err, errPortInUse) {
			s.removeDir()
			return nil, err
		}
	}
}

var errPortInUse = errors.New("port in use")

// serverBin is the binary cfg runs: cfg.Bin, else the Bin of ctx's Engine,
// else $REDIS_SERVER, else redis-server; its absolute path when it is found
// here.
func serverBin(ctx context.Context, cfg ServerConfig) string {
	bin := cfg.Bin
	if bin == "" {
		e, _ := EngineFrom(ctx)
		bin = e.Bin
	}
	if bin == "" {
		bin = os.Getenv("REDIS_SERVER")
	}
	if bin == "" {
		bin = "redis-server"
	}
	if path, err := exec.LookPath(bin); err == nil {
		return path
	}
	return bin
}

// Addr is the server's host:port.
func (s *Server) Addr() string {
	return net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port))
}

// Dir is the server's data directory (its log is Dir()/redis.log).
func (s *Server) Dir() string { return s.cfg.Dir }

// Clock is the wall clock the server runs on (nil unless started with
// ServerConfig.ClockShim).
func (s *Server) Clock() *Clock { return s.clock }

// Persistence is the server's persistence mode.
func (s *Server) Persistence() Persistence { return s.cfg.Persistence }

// PID is the process id of the running server, or 0 when it is not running.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.runningLocked() {
		return 0
	}
	return s.proc.PID()
}

// Running reports whether the server process is alive (paused counts as alive).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runningLocked()
}

// Target names the server in a fault window: its address, and where its
// process runs when that is not this machine's process tree ("127.0.0.1:6379
// in container 1a2b3c4d5e6f"), as of now.
func (s *Server) Target() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.proc.(interface{ Where() string }); ok && s.runningLocked() {
		return s.Addr() + " in " + w.Where()
	}
	return s.Addr()
}

// Bin is the server binary (an absolute path).
func (s *Server) Bin() string { return s.cfg.Bin }

// Launcher is what runs the server's process.
func (s *Server) Launcher() Launcher { return s.cfg.Launcher }

// Password is the server's requirepass (see ServerConfig.Password). Never
// print it.
func (s *Server) Password() string { return s.cfg.Password }

// Options returns go-redis options that reach this server with its
// password, 1 s timeouts, no hidden retries (MaxRetries -1) and context
// deadlines honoured.
func (s *Server) Options() *redis.Options {
	return &redis.Options{
		Addr:                  s.Addr(),
		Password:              s.cfg.Password,
		MaxRetries:            -1,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
	}
}

func (s *Server) runningLocked() bool {
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.Exited():
		return false
	default:
		return true
	}
}

func (s *Server) start(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("redis-server: closed")
	}
	if s.runningLocked() {
		s.mu.Unlock()
		return errors.New("redis-server: already running")
	}
	args := []string{
		"--bind", s.cfg.Host,
		"--port", strconv.Itoa(s.cfg.Port),
		"--dir", s.cfg.Dir,
		"--logfile", "redis.log",
		"--save", "",
		"--daemonize", "no",
		// Protected mode only refuses non-loopback clients without a
		// password; every server has a password (ServerConfig.Password).
		"--protected-mode", "no",
		"--repl-diskless-sync-delay", "0",
	}
	args = append(args, s.cfg.Persistence.args()...)
	args = append(args, s.cfg.Args...)
	conf := s.cfg.ConfigFile
	if conf == "" {
		var err error
		if conf, err = writeAuthConfig(s.cfg.Dir, s.cfg.Password); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	args = append([]string{conf}, args...)
	spec := LaunchSpec{Bin: s.cfg.Bin, Args: args, Dir: s.cfg.Dir}
	if s.clock != nil {
		spec.Env = s.clock.Env()
	}
	var stderr syncBuffer
	spec.Output = &stderr
	// The launch holds mu: a Server starts one process at a time.
	proc, err := s.cfg.Launcher.Launch(ctx, spec)
	if err != nil {
		s.mu.Unlock()
		return fmt.Errorf("start redis-server (%s): %w", s.cfg.Launcher.Name(), err)
	}
	exited := proc.Exited()
	s.proc, s.paused = proc, false
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, s.cfg.StartTimeout)
	defer cancel()
	err = waitPing(ctx, s.Addr(), s.cfg.Password, exited)
	if err == nil {
		return nil
	}
	_ = s.Kill()
	log, _ := os.ReadFile(filepath.Join(s.cfg.Dir, "redis.log"))
	if bytes.Contains(log, []byte("Address already in use")) {
		return fmt.Errorf("redis-server on %s: %w", s.Addr(), errPortInUse)
	}
	return fmt.Errorf("redis-server on %s did not answer PING: %w\n%s%s", s.Addr(), err, stderr.String(), tail(log, 2000))
}

// waitPing polls addr with PING, authenticated with password, until it
// answers, the process exits or ctx ends.
func waitPing(ctx context.Context, addr, password string, exited <-chan struct{}) error {
	rdb := redis.NewClient(&redis.Options{
		Addr: addr, Password: password, MaxRetries: -1, DialTimeout: 200 * time.Millisecond,
		ReadTimeout: 500 * time.Millisecond, PoolSize: 1,
	})
	defer rdb.Close()
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		err := rdb.Ping(ctx).Err()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("process exited")
		case <-ctx.Done():
			return fmt.Errorf("%w (last error: %v)", ctx.Err(), err)
		case <-t.C:
		}
	}
}

// Stop shuts the server down gracefully (SIGTERM; with AOF it flushes) and
// waits for it to exit. A paused server is resumed first. Stop of a server
// that is not running is a no-op.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	if !s.runningLocked() {
		s.mu.Unlock()
		return nil
	}
	p, exited := s.proc, s.proc.Exited()
	_ = p.Signal(syscall.SIGCONT)
	s.paused = false
	err := p.Signal(syscall.SIGTERM)
	s.mu.Unlock()
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop redis-server: %w", err)
	}
	select {
	case <-exited:
		return nil
	case <-ctx.Done():
		_ = s.Kill()
		return fmt.Errorf("stop redis-server: %w (killed)", ctx.Err())
	}
}

// Kill sends SIGKILL and waits for the process to exit. Unflushed data is lost
// according to the persistence mode. Kill of a server that is not running is
// a no-op.
func (s *Server) Kill() error {
	s.mu.Lock()
	if !s.runningLocked() {
		s.mu.Unlock()
		return nil
	}
	p, exited := s.proc, s.proc.Exited()
	err := p.Signal(syscall.SIGKILL)
	s.paused = false
	s.mu.Unlock()
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("kill redis-server: %w", err)
	}
	<-exited // SIGKILL cannot be caught: the wait is bounded by the kernel (in a container, by the engine).
	return nil
}

// Pause stops the process with SIGSTOP: connections stay open and requests
// go unanswered until Resume.
func (s *Server) Pause() error { return s.signal(syscall.SIGSTOP, true) }

// Resume continues a paused process with SIGCONT. Resume of a server that is
// not paused is a no-op.
func (s *Server) Resume() error { return s.signal(syscall.SIGCONT, false) }

// Paused reports whether the server was paused and not resumed since.
func (s *Server) Paused() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paused && s.runningLocked()
}

func (s *Server) signal(sig syscall.Signal, paused bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.runningLocked() {
		return fmt.Errorf("redis-server on %s: not running", s.Addr())
	}
	if !paused && !s.paused {
		return nil
	}
	if err := s.proc.Signal(sig); err != nil {
		return fmt.Errorf("signal %v to redis-server: %w", sig, err)
	}
	s.paused = paused
	return nil
}

// Restart starts the server again on the same address and data directory,
// killing it first if it is still running, and waits until it answers PING.
// What survives depends on the persistence mode.
func (s *Server) Restart(ctx context.Context) error {
	if err := s.Kill(); err != nil {
		return err
	}
	// The old socket may linger briefly; retry while the port is busy.
	deadline := time.Now().Add(s.cfg.StartTimeout)
	for {
		err := s.start(ctx)
		if err == nil || !errors.Is(err, errPortInUse) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close kills the server and removes the data directory it created. It is
// idempotent.
func (s *Server) Close() error {
	err := s.Kill()
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if !already {
		s.removeDir()
	}
	return err
}

func (s *Server) removeDir() {
	if s.clock != nil {
		_ = s.clock.Close()
	}
	if s.ownDir {
		_ = os.RemoveAll(s.cfg.Dir)
	}
}

func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port on %s: %w", host, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
