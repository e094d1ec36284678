package faults

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNoFirewall is wrapped by NewFirewall's error when nftables cannot be
// used: the nft binary is missing or the process lacks CAP_NET_ADMIN.
var ErrNoFirewall = errors.New("nftables unavailable: install nftables (Debian: apt-get install nftables; `make deps` does) and run with CAP_NET_ADMIN (root)")

// DefaultNftTimeout bounds each nft command when ctx has no deadline.
const DefaultNftTimeout = 10 * time.Second

var firewallSeq atomic.Uint32

// Firewall cuts server↔server links between lockcheck's loopback addresses
// with nftables: it owns one table, "inet lockcheck_<pid>_<start>_<n>" (see owner), with one
// input chain (policy accept) holding the drop rules of the faults in effect.
// Nothing outside that table is touched; Close deletes it. A process that
// dies without Close (SIGKILL) leaves its table behind; the name carries the
// pid, and SweepStale, which lockcheck runs at start-up, deletes the tables
// of processes that are gone (by hand: nft delete table inet <name>).
//
// Rules match addresses only, so give every server its own address
// (LoopbackHost; the topologies in this package do) and make it send from it
// (bind-source-addr), or a rule meant for one link cuts others too. Clients
// that dial without a source address send from 127.0.0.1 and are never cut.
// Methods are safe for concurrent use.
type Firewall struct {
	table string

	mu     sync.Mutex
	closed bool
}

// NewFirewall creates the Firewall's table and chain. The error wraps
// ErrNoFirewall when nftables cannot be used.
func NewFirewall(ctx context.Context) (*Firewall, error) {
	if _, err := exec.LookPath("nft"); err != nil {
		return nil, fmt.Errorf("%w (nft not found)", ErrNoFirewall)
	}
	f := &Firewall{table: fmt.Sprintf("lockcheck_%d_%d_%d", self().pid, self().start, firewallSeq.Add(1))}
	script := fmt.Sprintf("add table inet %s\nadd chain inet %s input { type filter hook input priority 0; policy accept; }\n", f.table, f.table)
	if _, err := nft(ctx, script, "-f", "-"); err != nil {
		if strings.Contains(err.Error(), "Operation not permitted") {
			return nil, fmt.Errorf("%w: %v", ErrNoFirewall, err)
		}
		return nil, err
	}
	return f, nil
}

// Table is the name of the Firewall's nft table (family inet).
func (f *Firewall) Table() string { return f.table }

// Close deletes the table and every rule in it. It is idempotent.
func (f *Firewall) Close(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	if _, err := nft(ctx, "", "delete", "table", "inet", f.table); err != nil && !strings.Contains(err.Error(), "No such file") {
		return err
	}
	f.closed = true
	return nil
}

// Cut returns a fault that drops every packet from the address of from to
// the address of to (Start), silently: no reset, no refusal. from and to are
// hosts or host:port addresses; only the hosts count. At the TCP level a
// one-way drop breaks every connection between the two in both directions
// (the replies of one side never arrive), but from's packets to other
// addresses, and everyone else's packets to to, pass: e.g. Cut(A, B) stops A
// from reaching B while A still reaches C and C still reaches B. Stop
// removes exactly the rule Start added; established connections then resume
// (TCP retransmits) unless their own timeouts fired meanwhile.
func (f *Firewall) Cut(from, to string) Fault {
	return f.rulesFault("nft-cut", hostOf(from)+"->"+hostOf(to), [][2]string{{hostOf(from), hostOf(to)}})
}

// Partition returns a fault that drops every packet between each address of
// side a and each address of side b, both ways (see Cut). Addresses within
// one side still reach each other.
func (f *Firewall) Partition(a, b []string) Fault {
	var pairs [][2]string
	for _, x := range a {
		for _, y := range b {
			pairs = append(pairs, [2]string{hostOf(x), hostOf(y)}, [2]string{hostOf(y), hostOf(x)})
		}
	}
	target := strings.Join(hostsOf(a), ",") + "|" + strings.Join(hostsOf(b), ",")
	return f.rulesFault("nft-partition", target, pairs)
}

// rulesFault adds one drop rule per (saddr, daddr) pair at Start and deletes
// those rules, by handle, at Stop.
func (f *Firewall) rulesFault(name, target string, pairs [][2]string) Fault {
	var handles []string
	stop := func(ctx context.Context) error {
		var errs []error
		for len(handles) > 0 {
			h := handles[len(handles)-1]
			if err := f.deleteRule(ctx, h); err != nil {
				errs = append(errs, err)
				break
			}
			handles = handles[:len(handles)-1]
		}
		return errors.Join(errs...)
	}
	return &fault{
		name: name, target: target,
		start: func(ctx context.Context) error {
			for _, p := range pairs {
				h, err := f.addDrop(ctx, p[0], p[1])
				if err != nil {
					return err
				}
				handles = append(handles, h)
			}
			return nil
		},
		stop: stop,
	}
}

var handleRE = regexp.MustCompile(`# handle (\d+)`)

// addDrop adds a rule dropping packets from saddr to daddr and returns its
// handle.
func (f *Firewall) addDrop(ctx context.Context, saddr, daddr string) (string, error) {
	for _, a := range []string{saddr, daddr} {
		if ip := net.ParseIP(a); ip == nil || ip.To4() == nil {
			return "", fmt.Errorf("firewall: %q is not an IPv4 address", a)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return "", errors.New("firewall: closed")
	}
	out, err := nft(ctx, "", "--echo", "--handle", "add", "rule", "inet", f.table, "input",
		"ip", "saddr", saddr, "ip", "daddr", daddr, "counter", "drop")
	if err != nil {
		return "", err
	}
	m := handleRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("firewall: no rule handle in nft output %q", out)
	}
	return m[1], nil
}

func (f *Firewall) deleteRule(ctx context.Context, handle string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil // the table, and the rule with it, is gone
	}
	_, err := nft(ctx, "", "delete", "rule", "inet", f.table, "input", "handle", handle)
	return err
}

// nft runs nft with args (and stdin, if any), bounded by ctx or
// DefaultNftTimeout, and returns its stdout.
func nft(ctx context.Context, stdin string, args ...string) (string, error) {
	ctx, cancel := withDefaultTimeout(ctx, DefaultNftTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "nft", args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("nft %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// hostOf returns the host of a host:port address, or addr itself.
func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

func hostsOf(addrs []string) []string {
	out := make([]string, len(addrs))
	for i, a := range addrs {
		out[i] = hostOf(a)
	}
	return out
}
