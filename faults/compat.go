package faults

import (
	"context"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Servers before Redis 7 (Redis 6.2 on the --server axis) lack two
// directives lockcheck's topologies use: bind-source-addr (they send from
// their first bind address anyway, which is what it asks for) and
// cluster-port (their cluster bus is always port+10000). legacyServer tells
// them apart by the binary's --version; Valkey is 7-compatible.

var versionMajorRE = regexp.MustCompile(`\bv=([0-9]+)\.`)

var majors sync.Map // bin → int (0: unknown)

// serverMajor is bin's major version, 0 when --version does not say (an
// image of the user's, run without a binary here: taken as current).
func serverMajor(ctx context.Context, bin string) int {
	if v, ok := majors.Load(bin); ok {
		return v.(int)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	major := 0
	if out, err := exec.CommandContext(ctx, bin, "--version").Output(); err == nil {
		if m := versionMajorRE.FindSubmatch(out); m != nil {
			major, _ = strconv.Atoi(string(m[1]))
		}
	}
	if ctx.Err() == nil {
		majors.Store(bin, major)
	}
	return major
}

// legacyServer reports whether bin is a server before Redis 7.
func legacyServer(ctx context.Context, bin string) bool {
	m := serverMajor(ctx, bin)
	return m > 0 && m < 7
}

// withoutBindSourceAddr drops "--bind-source-addr X" from args.
func withoutBindSourceAddr(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		if args[i] == "--bind-source-addr" && i+1 < len(args) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// legacyBusOffset is the fixed distance of a pre-7 cluster bus port.
const legacyBusOffset = 10000

// freePortWithBus finds a free port p on host whose p+10000 is free too
// (a pre-7 cluster node's client port and bus).
func freePortWithBus(host string) (int, error) {
	var err error
	for range 50 {
		var p int
		if p, err = freePort(host); err != nil {
			return 0, err
		}
		if p+legacyBusOffset > 65535 {
			continue
		}
		l, lerr := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p+legacyBusOffset)))
		if lerr == nil {
			_ = l.Close()
			return p, nil
		}
	}
	return 0, errPortInUse
}
