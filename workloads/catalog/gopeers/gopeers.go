// Package gopeers holds the Go peer libraries lockcheck compares itself
// with (impl/peers: redsync, redislock, each also tuned) as subjects, for
// Register to add to a registry: the CLI adds them to catalog.Subjects when
// it assembles itself; a locktest user does not, and does not build them.
package gopeers

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/peers"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Register adds every peer of Subjects to reg (catalog.Subjects in the
// CLI). It fails, having added those before, when a name is taken: call it
// once per registry.
func Register(reg *subject.Registry) error {
	for _, s := range Subjects() {
		if err := reg.Register(s); err != nil {
			return err
		}
	}
	return nil
}

// Subjects are the peer adapters as subjects of kind peer, each at its
// library's defaults unless tuned (NotScored says how). They have a
// watchdog: an adapter extends a hold taken without a lease every third of
// its lease, the way both libraries' docs suggest (impl/peers), so the
// checker holds such a hold to its renewal and the scenarios and hunts that
// need renewal run them.
func Subjects() []subject.Subject {
	var out []subject.Subject
	for _, p := range peers.All() {
		name := p.Name
		_, linked, _ := moduleVersion(p.Module)(context.Background())
		out = append(out, subject.Subject{
			Name: name, Kind: subject.KindPeer, Doc: p.Doc, Version: moduleVersion(p.Module), NotScored: tunedNote(p), AttemptsHold: p.AttemptsHold,
			Release: linked, Versions: catalog.PeerVersions(name, p.Doc, linked, p.AttemptsHold),
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				opts := &peers.Options{WatchdogLease: o.WatchdogLease, Seed: uint64(o.Seed)}
				switch name {
				case "redsync":
					return peers.Redsync(opts)
				case "redsync-tuned":
					return peers.RedsyncTuned(opts)
				case "redislock":
					return peers.Redislock(opts)
				case "redislock-tuned":
					return peers.RedislockTuned(opts)
				}
				return p.Open // a peer added later: its defaults
			},
			WatchdogLease: peers.DefaultWatchdogLease,
		})
	}
	return out
}

// tunedNote is a tuned peer's NotScored: the scoreboard has one row per
// library and version, at the defaults people run.
func tunedNote(p peers.Subject) string {
	if p.Tuned == "" {
		return ""
	}
	return "a tuned variant (" + p.Tuned + ") of " + p.Module + ", scored at its defaults"
}

// moduleVersion reports a Go module's version from the build's info.
func moduleVersion(module string) func(context.Context) (string, string, error) {
	return func(context.Context) (string, string, error) {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return module, "", errors.New("the binary carries no build info")
		}
		for _, d := range bi.Deps {
			if d.Path == module {
				if d.Replace != nil {
					d = d.Replace
				}
				return module, d.Version, nil
			}
		}
		return module, "", fmt.Errorf("%s is not in the build's dependencies", module)
	}
}
