package faults

import (
	"context"
	"errors"
	"fmt"
)

// NodesConfig configures StartNodes.
type NodesConfig struct {
	// N is the number of nodes. Default 3.
	N int
	// Server is the template for every node. Host and Port are ignored: each
	// node gets its own LoopbackHost and a free port; Dir must be empty (each
	// node gets its own temporary directory).
	Server ServerConfig
}

// Nodes are N independent redis-servers (no replication between them), the
// deployment RedLock runs on. Each binds its own loopback address (see
// LoopbackHost), so a Firewall can cut the links between them and a client.
type Nodes struct {
	// Servers are the nodes, for kills, pauses and restarts.
	Servers []*Server
}

// StartNodes starts cfg.N independent redis-servers. On error it stops what it
// started.
func StartNodes(ctx context.Context, cfg NodesConfig) (*Nodes, error) {
	if cfg.N <= 0 {
		cfg.N = 3
	}
	if cfg.Server.Dir != "" {
		return nil, errors.New("nodes: ServerConfig.Dir must be empty")
	}
	n := &Nodes{}
	for i := 0; i < cfg.N; i++ {
		sc := cfg.Server
		sc.Host, sc.Port = LoopbackHost(), 0
		s, err := StartServer(ctx, sc)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("node %d: %w", i, err), n.Close())
		}
		n.Servers = append(n.Servers, s)
	}
	return n, nil
}

// Addrs returns the nodes' host:port addresses, in order.
func (n *Nodes) Addrs() []string { return addrsOf(n.Servers) }

// Password is the password of every node. Never print it.
func (n *Nodes) Password() string { return n.Servers[0].Password() }

// Close kills every node and removes its files. It is idempotent.
func (n *Nodes) Close() error { return closeAll(n.Servers) }

// RestartEmpty returns a fault that kills s and at once starts it again on
// the same address with an empty dataset (Start): every key it held, every
// lock, is gone, while clients see only a short burst of connection errors.
// This is Kleppmann's RedLock counterexample: a node that forgets a lock
// granted by a quorum lets a second client form a quorum. s must run without
// persistence (PersistNone), otherwise Start fails before touching it. Stop
// does nothing (the restart is the fault); the recorded window runs from the
// restart to Stop.
func RestartEmpty(s *Server) Fault {
	return &fault{
		name: "redis-restart-empty", target: s.Target(),
		start: func(ctx context.Context) error {
			if p := s.Persistence(); p != PersistNone {
				return fmt.Errorf("restart-empty %s: server runs with persistence %q, want %q", s.Addr(), p, PersistNone)
			}
			if err := s.Restart(ctx); err != nil {
				return fmt.Errorf("restart-empty %s: %w", s.Addr(), err)
			}
			return nil
		},
		stop: noop,
	}
}

func addrsOf(ss []*Server) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Addr()
	}
	return out
}

func closeAll(ss []*Server) error {
	var errs []error
	for _, s := range ss {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
