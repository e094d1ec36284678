package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Driver describes an external lock: a program that speaks the driver
// protocol (see package impl/driver).
type Driver struct {
	// Name is the subject's name.
	Name string
	// Doc is the subject's one-line description.
	Doc string
	// Command is the driver's argv.
	Command []string
	// Dir is its working directory. A relative Dir is a folder of the
	// drivers shipped with lockcheck (DriversDir).
	Dir string
	// Env is added to lockcheck's environment for the driver.
	Env []string
	// Capabilities are what the driver announces (driver.CapReentrant, ...):
	// they decide the workload (reentry) and the checkers (fairness), and a
	// driver whose banner lacks one is refused.
	Capabilities []string
	// Installed, if set, reports what is missing for the driver to run
	// (an interpreter, its packages) and how to install it.
	Installed func(dir string) error
	// Build, if set, is the argv, run in the driver's folder, of the
	// script that installs what the driver needs and builds it (the
	// shipped drivers' build.sh): a subject opened while Installed fails
	// runs it first, once (Builder).
	Build []string
	// TTLWakeups: see subject.Subject.TTLWakeups.
	TTLWakeups bool
	// Spares is driver.Options.Spares: processes started ahead of use, for
	// drivers slow to start (a JVM).
	Spares int
	// SyncsReplicas is subject.Subject.SyncsReplicas.
	SyncsReplicas bool
	// Topologies are those the driver supports (driver.TopologySingle, ...;
	// none: single only). A driver that supports Sentinel and Cluster runs
	// on every topology of one Redis; others need one address.
	Topologies []string
	// LeaseGranularity: see subject.Subject.LeaseGranularity.
	LeaseGranularity time.Duration
	// NotScored: see subject.Subject.NotScored.
	NotScored string
	// Owners says the driver hosts several owners in one process
	// (capability driver.CapOwners): runs with Plan.ThreadsPerProcess > 1
	// may use it (subject.Subject.Owners).
	Owners bool
	// Redlock says the driver runs on N independent masters (hello's
	// topology redlock lists every node): its subject needs them
	// (NeedsRedlockNodes; Subject.OnNodes binds it) and a failed acquire
	// may be a split vote (SplitVotes).
	Redlock bool
	// Members is subject.Subject.Members (a multilock's members); a
	// driver with Members or Quorum also sets SplitVotes and WaitSpent.
	Members int
	// Quorum says an acquire holds a quorum of member locks (Redisson's
	// RedLock on one Redis): a failed acquire may be a split vote.
	Quorum bool
	// AttemptsHold is subject.Subject.AttemptsHold: a failed attempt may
	// hold the lock for a moment (redsync's releases, served by a
	// lockcheck built with them).
	AttemptsHold bool
	// QueueTimeout is subject.Subject.QueueTimeout: how long a fair lock
	// keeps the place of a queued waiter whose process died.
	QueueTimeout time.Duration
	// ReplyTimeout is subject.Subject.ReplyTimeout: how long the driver's
	// client waits on a request whose connection closed under it.
	ReplyTimeout time.Duration
	// Release is the release of its library the driver runs, when known
	// without starting it (subject.Subject.Release).
	Release string
	// releases, if set, runs the driver at other releases of its library
	// (NAME@VERSION; see versions.go).
	releases *releases
}

// Subject returns d as a subject of kind external. Its Configure passes the
// run's watchdog lease and seed to the driver's hello; opening it first
// builds the driver when Installed fails and d has a Build script (a
// progress line on stderr), then fails with Installed's error when the
// driver still cannot run here. A Redlock driver's
// subject opens only once bound to nodes (Subject.OnNodes).
func (d Driver) Subject() subject.Subject { return d.subject(nil, "") }

// subject is Subject; a Redlock driver's hello names the nodes at addrs
// (password: theirs) whatever client the runner opens it on.
func (d Driver) subject(nodes []string, password string) subject.Subject {
	has := func(c string) bool { return slices.Contains(d.Capabilities, c) }
	s := subject.Subject{
		Name: d.Name, Kind: subject.KindExternal, Doc: d.Doc, Needs: d.needs(), SyncsReplicas: d.SyncsReplicas,
		Reentrant: has(driver.CapReentrant), Fair: has(driver.CapFair), NoWatchdog: !has(driver.CapWatchdog), TTLWakeups: d.TTLWakeups,
		LeaseGranularity: d.LeaseGranularity, SplitVotes: d.Redlock || d.Quorum || d.Members > 0, WaitSpent: d.Quorum || d.Members > 0, SplitWait: d.splitWait(), Members: d.Members, Fenced: has(driver.CapFenced), NotScored: d.NotScored, Version: d.version,
		Release: d.Release, Versions: d.versions(), ReplyTimeout: d.ReplyTimeout, AttemptsHold: d.AttemptsHold, QueueTimeout: d.QueueTimeout,
		Owners: d.Owners, Interrupts: has(driver.CapInterrupt), ReadWrite: has(driver.CapReadWrite),
		SharedObjects: has(driver.CapSharedObjects), CallForms: has(driver.CapForms),
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				if _, proxied := redlockNodesOf(rdb); d.Redlock && !proxied {
					if len(nodes) == 0 {
						return nil, fmt.Errorf("subject %s: %w", d.Name, ErrNoRedlockNodes)
					}
					rdb = driver.Describe(rdb, driver.Topology{Kind: driver.TopologyRedlock, Addrs: nodes, Password: password})
				}
				dir, err := d.WorkDir()
				if err != nil {
					return nil, err
				}
				if err := defaultBuilder.Ready(ctx, d, dir); err != nil {
					return nil, fmt.Errorf("subject %s: %w", d.Name, err)
				}
				return driver.Open(driver.Options{
					Command: d.Command, Dir: dir, Env: d.Env, Name: d.Name, Capabilities: d.Capabilities,
					WatchdogLease: o.WatchdogLease, Seed: o.Seed, OwnerEnv: o.OwnerEnv, Spares: d.Spares, Owners: o.Owners,
					SharedObjects: o.SharedObjects, OnStall: o.OnStall,
				})(ctx, rdb)
			}
		},
	}
	if d.Redlock {
		s.OnNodes = func(addrs []string, password string) subject.Subject { return d.subject(addrs, password) }
	}
	return s
}

// version reads the driver's banner: its name and version. It builds
// nothing (a caller bounds it to a JVM's start): a driver not built yet
// has no version until a run opens it.
func (d Driver) version(ctx context.Context) (string, string, error) {
	dir, err := d.WorkDir()
	if err != nil {
		return d.Name, "", err
	}
	if d.Installed != nil {
		if err := d.Installed(dir); err != nil {
			return d.Name, "", err
		}
	}
	b, err := driver.Probe(ctx, driver.Options{Command: d.Command, Dir: dir, Env: d.Env, Name: d.Name})
	if err != nil {
		return d.Name, "", err
	}
	return b.Driver, b.Version, nil
}

// needs is NeedsRedlockNodes for a Redlock driver, else NeedsOneAddress
// unless the driver supports Sentinel and Cluster.
func (d Driver) needs() string {
	switch {
	case d.Redlock:
		return subject.NeedsRedlockNodes
	case slices.Contains(d.Topologies, driver.TopologySentinel) && slices.Contains(d.Topologies, driver.TopologyCluster):
		return ""
	}
	return subject.NeedsOneAddress
}

// WorkDir returns the folder the driver runs in: Dir, resolved against
// DriversDir when relative.
func (d Driver) WorkDir() (string, error) {
	if d.Dir == "" || filepath.IsAbs(d.Dir) {
		return d.Dir, nil
	}
	base, err := DriversDir()
	if err != nil {
		return "", fmt.Errorf("subject %s: %w", d.Name, err)
	}
	return filepath.Join(base, d.Dir), nil
}

// ErrNoDrivers is returned by DriversDir when the shipped drivers are nowhere
// to be found.
var ErrNoDrivers = errors.New("the drivers shipped with lockcheck (impl/drivers) were not found: run lockcheck from its source tree or set LOCKCHECK_DRIVERS")

// DriversDir returns the folder of the shipped drivers: $LOCKCHECK_DRIVERS,
// else impl/drivers in the working directory or one of its parents, else
// impl/drivers beside the executable's folder (bin/lockcheck in a checkout).
func DriversDir() (string, error) {
	if d := os.Getenv("LOCKCHECK_DRIVERS"); d != "" {
		return d, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		for dir := s; ; dir = filepath.Dir(dir) {
			p := filepath.Join(dir, "impl", "drivers")
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", ErrNoDrivers
}

// needNode reports a missing node or a driver folder whose npm packages were
// not installed.
func needNode(dir string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node is not installed: run make deps")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		return fmt.Errorf("its npm packages are not installed (%s/node_modules): run make deps", dir)
	}
	return nil
}

// needPythonRedis reports a missing python3-redis for Debian's python3.
func needPythonRedis(string) error {
	if err := exec.Command(debianPython, "-c", "import redis").Run(); err != nil {
		return fmt.Errorf("%s cannot import redis (Debian package python3-redis): run make deps", debianPython)
	}
	return nil
}

// needRedisson reports a missing java or a Redisson driver that was not
// built (its jar in the driver folder's build, the target folder of line).
func needRedisson(build string) func(dir string) error {
	return func(dir string) error {
		if _, err := exec.LookPath("java"); err != nil {
			return errors.New("java is not installed (Debian package openjdk-17-jre-headless): run make deps")
		}
		jar := filepath.Join(dir, build, "redisson-driver.jar")
		if _, err := os.Stat(jar); err != nil {
			return fmt.Errorf("its jar %s is not built (needs Maven, Debian package maven): run make deps", jar)
		}
		return nil
	}
}

// debianPython is the interpreter python3-redis installs for.
const debianPython = "/usr/bin/python3"

// needVenv reports a Python driver whose virtualenv (.venv in its folder,
// made by make deps from its requirements.txt) is missing or cannot import
// module.
func needVenv(module string) func(string) error {
	return func(dir string) error {
		py := filepath.Join(dir, venvPython)
		if err := exec.Command(py, "-c", "import "+module).Run(); err != nil {
			return fmt.Errorf("its virtualenv cannot import %s (%s: %v): run make deps "+
				"(/usr/bin/python3 -m venv .venv && .venv/bin/pip install --require-hashes -r requirements.txt in %s)", module, py, err, dir)
		}
		return nil
	}
}

// venvPython is the interpreter of a Python driver's own virtualenv.
const venvPython = ".venv/bin/python"

// rslockBinary is the rslock driver, built by make deps into its folder's
// target directory (cargo build --release --locked).
const rslockBinary = "target/release/rslock-driver"

// needRslock reports an rslock driver that was not built.
func needRslock(dir string) error {
	bin := filepath.Join(dir, rslockBinary)
	if _, err := os.Stat(bin); err != nil {
		if _, lerr := exec.LookPath("cargo"); lerr != nil {
			return fmt.Errorf("its binary %s is not built and cargo is not installed (Debian package cargo): run make deps", bin)
		}
		return fmt.Errorf("its binary %s is not built (cargo build --release --locked in %s): run make deps", bin, dir)
	}
	return nil
}

// potterySupports is the range of pottery releases the driver runs: not
// measured beyond the pin (docs/drivers.md), so no bound.
var potterySupports = subject.Range{Note: "not measured beyond the pinned 3.0.1"}

// shippedBuild is the build script of a shipped driver: its folder's
// build.sh, which scripts/deps.sh also runs.
var shippedBuild = []string{"bash", "build.sh"}

// shippedDrivers are the drivers in impl/drivers, each built by its folder's
// build.sh unless it names another Build.
func shippedDrivers() []Driver {
	ds := shippedDriverList()
	for i := range ds {
		if ds[i].Build == nil {
			ds[i].Build = slices.Clone(shippedBuild)
		}
	}
	return ds
}

// shippedDriverList are the drivers in impl/drivers.
func shippedDriverList() []Driver {
	return append([]Driver{
		{
			Name: "node-redisson", Dir: "node-redisson", Command: []string{"node", "driver.js"},
			Doc:          "npm node-redisson (Redisson's scripts for Node.js) over the driver protocol",
			Capabilities: []string{driver.CapReentrant, driver.CapWatchdog},
			Installed:    needNode,
			Release:      "1.0.4", releases: npmReleases("node-redisson", "node-redisson", "1.0.4", subject.Range{Min: "1.0.0", Max: "1.0.x", Note: "measured: 1.0.4, the one release the registry serves here"}),
			Owners: true, // one clientId per owner on one Redisson instance
			// Its waiters sometimes wait out a whole TTL on a free lock
			// in hunt runs (waits of 1.50 s with a 1.5 s watchdog lease),
			// within Redisson's documented bound; a plain hand-off does
			// wake them (probe-wakeup.js, the library alone).
			TTLWakeups: true,
		},
		{
			Name: "node-redlock", Dir: "node-redlock", Command: []string{"node", "driver.js"},
			Doc:       "npm redlock 4 on one Redis node (SET NX PX, compare-and-delete, retries) over the driver protocol",
			Installed: needNode,
			Release:   "4.2.0", releases: npmReleases("node-redlock", "redlock", "4.2.0", subject.Range{Min: "3.0.0", Max: "4.x", Note: "redlock 5 has another API; redlock 3 has 4's (acquire, release, clientError); ran valid: 3.1.2 (no faults), 4.1.0, 4.2.0"}),
		},
		{
			Name: "redis-py", Dir: "redis-py", Command: []string{debianPython, "driver.py"},
			Doc:       "redis-py's Lock (Debian python3-redis) over the driver protocol",
			Installed: needPythonRedis,
			Owners:    true, // threads on one redis-py client (pylib)
		},
		{
			Name: "redis-py-latest", Dir: "redis-py-latest", Command: []string{venvPython, "driver.py"},
			Doc:       "redis-py's Lock (redis-py from PyPI, pinned) over the driver protocol",
			Installed: needVenv("redis"),
			Release:   "8.1.0", releases: pipReleases("redis-py-latest", "redis", "redis", "8.1.0", subject.Range{Note: "not measured beyond the pinned 8.1.0"}),
			Owners: true, // threads on one redis-py client (pylib)
		},
		{
			Name: "pottery-redlock", Dir: "pottery-redlock", Command: []string{venvPython, "driver.py"},
			Doc:       "pottery's Redlock (PyPI) on one master over the driver protocol",
			Installed: needVenv("pottery"),
			Release:   "3.0.1", releases: pipReleases("pottery-redlock", "pottery", "pottery", "3.0.1", potterySupports),
		},
		{
			Name: "pottery-redlock-3", Dir: "pottery-redlock", Command: []string{venvPython, "driver.py"},
			Doc:       "pottery's Redlock (PyPI) on N independent masters (the redlock topology, quorum N/2+1) over the driver protocol",
			Installed: needVenv("pottery"), Redlock: true,
			Release: "3.0.1", releases: pipReleases("pottery-redlock", "pottery", "pottery", "3.0.1", potterySupports),
		},
		{
			Name: "rslock", Dir: "rslock", Command: []string{rslockBinary},
			Doc:          "the Rust crate rslock (Redlock; crates.io, pinned) on one master over the driver protocol",
			Capabilities: []string{driver.CapCycle},
			Installed:    needRslock,
			Release:      "0.10.0", releases: crateReleases(),
		},
		{
			Name: "rslock-3", Dir: "rslock", Command: []string{rslockBinary},
			Doc:          "the Rust crate rslock (Redlock) on N independent masters (the redlock topology, quorum N/2+1) over the driver protocol",
			Capabilities: []string{driver.CapCycle},
			Installed:    needRslock, Redlock: true,
			Release: "0.10.0", releases: crateReleases(),
		},
		{
			Name: "python-redis-lock", Dir: "python-redis-lock", Command: []string{venvPython, "driver.py"},
			Doc:          "python-redis-lock's Lock (PyPI; SET NX EX, BLPOP wake-ups, auto_renewal thread) over the driver protocol",
			Capabilities: []string{driver.CapWatchdog},
			Installed:    needVenv("redis_lock"),
			Release:      "4.0.1", releases: pipReleases("python-redis-lock", "python-redis-lock", "redis_lock", "4.0.1", subject.Range{Min: "2.3.0", Note: "ran valid: 3.7.0, 4.0.1; before 3.0.0 a wait longer than expire is a run of acquires of at most expire each"}),
			// A lease that runs out pushes no signal: waiters sleep in
			// BLPOP until their own timeout (whole seconds, at most the
			// lease) before they try again.
			TTLWakeups: true,
			// Leases are whole seconds (SET EX, EXPIRE).
			LeaseGranularity: time.Second,
		},
	}, append(redissonDrivers(), springDrivers()...)...)
}

// redissonDrivers are Redisson's locks, served by impl/drivers/redisson-java
// (driver.sh). Each request is bounded by Redisson's own settings: timeout
// (one command's reply) 1000 ms, retryAttempts 0 (a script resent after a
// lost reply could count a reentry twice), so retryInterval never applies;
// the driver answers error for a future still pending at timeout_ms.
// redissonTimeout is the driver's Redisson timeout (a command's reply;
// java-common Flags.DEFAULT_COMMAND_TIMEOUT_MS). Redisson waits it out for a
// request whose connection was closed under it: a release in flight when
// CLIENT KILL closed its connection failed 1.09 s later with
// RedisResponseTimeoutException "(1000 ms) occured after 0 retry attempts"
// (redisson@3.43.0, client-conn-kill, seed 1).
const redissonTimeout = 1000 * time.Millisecond

func redissonDrivers() []Driver {
	all := []string{driver.CapReentrant, driver.CapWatchdog, driver.CapHoldCount, driver.CapCycle, driver.CapInterrupt, driver.CapSharedObjects, driver.CapForms}
	redisson := func(name, lock, doc string, caps ...string) Driver {
		return Driver{
			Name: name, Dir: "redisson-java", Command: []string{"sh", "driver.sh", "--lock", lock},
			Doc:     doc + " (Redisson " + redissonPinned + ", Java) over the driver protocol",
			Release: redissonPinned, releases: redissonReleases(),
			Capabilities: append(slices.Clone(all), caps...),
			Installed:    needRedisson("target"),
			Spares:       1,
			ReplyTimeout: redissonTimeout,
			Owners:       true, // one thread per owner on one RedissonClient
			Topologies:   []string{driver.TopologySingle, driver.TopologySentinel, driver.TopologyCluster},
			// Redisson's default checkLockSyncedSlaves: on a master with
			// replicas, a grant no replica acknowledged (WAIT) is undone
			// and the acquire fails with NoSyncedSlavesException.
			SyncsReplicas: true,
		}
	}
	return []Driver{
		redisson("redisson", "lock", "Redisson's RLock (getLock; lockWatchdogTimeout from the run's watchdog lease)"),
		redissonFair(redisson("redisson-fair", "fair", "Redisson's fair lock (getFairLock)", driver.CapFair)),
		redissonSince(redisson("redisson-fenced", "fenced", "Redisson's fenced lock (getFencedLock; tokens from INCR of a counter)", driver.CapFenced),
			"3.25.0", "RFencedLock came in 3.25.0: the driver's hello refuses older releases"),
		redissonSince(redisson("redisson-spin", "spin", "Redisson's spin lock (getSpinLock: polls with backoff, no pub/sub)"),
			"3.17.0", "RSpinLock came in 3.17.0; before 3.25.0 through reflection"),
		redissonRW(redisson("redisson-rwlock", "rwlock", "Redisson's read-write lock (getReadWriteLock; each request's mode picks readLock or writeLock)", driver.CapReadWrite)),
		redissonMulti(redisson("redisson-multilock", "multilock", "Redisson's RedissonMultiLock over 3 RLocks (the name, name:m1, name:m2)"), false),
		redissonMulti(redisson("redisson-redlock", "redlock", "Redisson's RedissonRedLock over 3 RLocks on one Redis (held by 2 of 3)"), true),
	}
}

// Drivers returns the drivers shipped in impl/drivers, each registered in
// Subjects under its Name.
func Drivers() []Driver { return shippedDrivers() }

// Check reports what is missing for d to run here (its folder, an
// interpreter, its packages) and how to install it; nil when it can run.
func (d Driver) Check() error {
	dir, err := d.WorkDir()
	if err == nil && d.Installed != nil {
		err = d.Installed(dir)
	}
	return err
}

// redissonFairLockWaitTimeout is Redisson's Config.fairLockWaitTimeout
// default (300000 ms in 3.43.0 and 4.7.0, read from their Config), which
// the driver leaves as it is: how long a fair lock keeps the place of a
// queued thread that died.
const redissonFairLockWaitTimeout = 5 * time.Minute

// redissonFair adapts a Redisson driver entry to the fair lock: it claims
// Redisson's queue timeout for a dead waiter.
func redissonFair(d Driver) Driver {
	d.QueueTimeout = redissonFairLockWaitTimeout
	return d
}
