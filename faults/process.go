package faults

import (
	"context"
	"fmt"
)

// Pause returns a fault that freezes s with SIGSTOP and thaws it with
// SIGCONT. While paused the kernel still accepts connections and buffers
// requests, so clients see latency and timeouts, not refusals; requests sent
// during the pause are served after it. Stop of a server that is not paused
// is a no-op.
func Pause(s *Server) Fault {
	return &fault{
		name: "redis-pause", target: s.Target(),
		start: func(context.Context) error { return s.Pause() },
		stop: func(context.Context) error {
			if !s.Running() {
				return nil
			}
			return s.Resume()
		},
	}
}

// KillRestart returns a fault that kills s with SIGKILL (Start) and starts it
// again on the same address and data directory (Stop, bounded by ctx and
// ServerConfig.StartTimeout). While it is down clients get connection
// refused. What survives the restart is the server's persistence mode:
// PersistNone comes back empty (every lock is gone), the AOF modes come back
// with every acknowledged write (a process kill does not drop the kernel page
// cache). Stop of a running server is a no-op.
func KillRestart(s *Server) Fault {
	return &fault{
		name: "redis-kill", target: s.Target(),
		start: func(context.Context) error { return s.Kill() },
		stop: func(ctx context.Context) error {
			if s.Running() {
				return nil
			}
			if err := s.Restart(ctx); err != nil {
				return fmt.Errorf("restart redis-server on %s: %w", s.Addr(), err)
			}
			return nil
		},
	}
}
