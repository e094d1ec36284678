package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog/release"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// goPeer is a Go library lockcheck links (impl/peers) and runs at other
// releases as a driver process: one binary cannot link two releases of a
// module, so release V runs in a lockcheck binary built from a generated
// module that requires lockcheck (this source tree) and replaces the
// library's module with V. go fetches V through the module proxy and checks
// it against the checksum database, recording it in the generated go.sum.
type goPeer struct {
	name, module string
	supports     subject.Range
	// eras are the build tags of the peer's adapters for older releases
	// (impl/peers/*_api_*.go), oldest first: a release builds with the
	// tag of the first era it is below, none when it is below none.
	eras []adapterEra
}

// adapterEra is one adapter of a peer's older releases: its build tag, for
// the releases before below.
type adapterEra struct{ tag, below string }

// tags returns the build tags release v needs.
func (p goPeer) tags(v string) string {
	for _, e := range p.eras {
		if subject.CompareReleases(v, e.below) < 0 {
			return e.tag
		}
	}
	return ""
}

// goPeers are the peers runnable at other releases.
var goPeers = []goPeer{
	{
		name: "redsync", module: "github.com/go-redsync/redsync/v4",
		supports: subject.Range{Min: "v4.0.0", Note: "v4.0.x-v4.7.x through the redsync_v4_0 adapter: go-redis v8, no TryLock; ran valid: v4.0.3; v4.8.x-v4.10.x through redsync_v4_8: no TryLock; v4.11.x through redsync_v4_11: no ErrLockAlreadyExpired"},
		eras:     []adapterEra{{"redsync_v4_0", "v4.8.0"}, {"redsync_v4_8", "v4.11.0"}, {"redsync_v4_11", "v4.12.0"}},
	},
	{
		name: "redislock", module: "github.com/bsm/redislock",
		supports: subject.Range{Min: "v0.8.0", Note: "v0.8.x through the redislock_v0_8 adapter: go-redis v9's release candidate, the library's own token; ran valid: v0.8.2"},
		eras:     []adapterEra{{"redislock_v0_8", "v0.9.0"}},
	},
}

// PeerVersions is the Versions of the peer subject name, whose linked
// release (go.mod's) is pinned; nil when it runs that release only. A
// release's driver claims a watchdog, as the linked adapter does: it
// extends a hold taken without a lease (impl/peers), and its failed
// attempts hold as the pinned release's do (attemptsHold).
func PeerVersions(name, doc, pinned string, attemptsHold bool) *subject.Versions {
	for _, p := range goPeers {
		if p.name == name {
			d := Driver{Name: name, Doc: doc, Capabilities: []string{driver.CapWatchdog}, releases: p.releases(pinned), AttemptsHold: attemptsHold}
			return d.versions()
		}
	}
	return nil
}

// releases is p's releases: the cache folder holds the generated module
// (src/) and the binary it builds (lockcheck).
func (p goPeer) releases(pinned string) *releases {
	return &releases{
		library: "go-" + p.name, registry: "the Go module proxy " + p.module, pinned: pinned, supports: p.supports,
		list:    func(ctx context.Context) ([]string, error) { return release.GoVersions(ctx, p.module) },
		has:     func(ctx context.Context, v string) (bool, error) { return release.GoHas(ctx, p.module, v) },
		howTo:   "go list -m -versions " + p.module,
		sources: []string{"..", "../../cmd", "../../workloads", "../../model", "../../faults", "../../go.mod", "../../go.sum"},
		build:   func(ctx context.Context, v, dir string) error { return p.build(ctx, v, dir) },
		at: func(d Driver, v, dir string) Driver {
			d.Command = []string{filepath.Join(dir, "lockcheck"), "driver", p.name}
			d.Dir = dir
			d.Doc = fmt.Sprintf("%s, at %s %s in a driver process (a lockcheck built with it)", d.Doc, p.module, v)
			return d
		},
	}
}

// build writes the generated module into dir/src and builds lockcheck
// there with p.module replaced by release v.
func (p goPeer) build(ctx context.Context, v, dir string) error {
	drivers, err := DriversDir()
	if err != nil {
		return err
	}
	root, err := filepath.Abs(filepath.Join(drivers, "..", ".."))
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return fmt.Errorf("lockcheck's go.mod: %w", err)
	}
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	mod := fmt.Sprintf("module lockcheck.local/%s-%s\n\n%s\n\nrequire github.com/lockcheck/lockcheck v0.0.0\n\nreplace github.com/lockcheck/lockcheck => %s\n\nreplace %s => %s %s\n",
		p.name, v, goLine(string(gomod)), root, p.module, p.module, v)
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(src, "go.sum"), sum, 0o644); err != nil {
		return err
	}
	argv := []string{"go", "build", "-mod=mod", "-o", filepath.Join(dir, "lockcheck")}
	if t := p.tags(v); t != "" {
		argv = append(argv, "-tags", t)
	}
	return release.Run(ctx, src, []string{"GOFLAGS=-buildvcs=false", "GOWORK=off"}, append(argv, "github.com/lockcheck/lockcheck/cmd/lockcheck")...)
}

// goLine is the "go 1.N" line of a go.mod (the generated module builds
// with the same language version).
func goLine(gomod string) string {
	for _, l := range strings.Split(gomod, "\n") {
		if strings.HasPrefix(l, "go ") {
			return l
		}
	}
	return "go 1.22"
}
