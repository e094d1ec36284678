package catalog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/lockcheck/lockcheck/impl/driver"
)

// springDrivers are Spring Integration's RedisLockRegistry (6.5.5, over
// Lettuce) in its two modes, served by impl/drivers/spring-redis-lock
// (driver.sh --mode). A registry has one expireAfter: the driver keeps one
// registry per lease (the watchdog registry, expireAfter = the run's
// watchdog lease, renews its holds with the library's renewal task). Each
// request is bounded by Lettuce's 1000 ms command timeout; the driver
// answers error for a call still running at timeout_ms. Its unlock has two
// call forms: unlock(), and unlock() by a thread whose interrupt status is
// set (UnlockForms.java).
func springDrivers() []Driver {
	spring := func(name, mode, doc string) Driver {
		return Driver{
			Name: name, Dir: "spring-redis-lock", Command: []string{"sh", "driver.sh", "--mode", mode},
			Doc:     doc + " (Spring Integration " + springPinned + ", Lettuce, Java) over the driver protocol",
			Release: springPinned, releases: springReleases(),
			Capabilities: []string{driver.CapReentrant, driver.CapWatchdog, driver.CapCycle, driver.CapInterrupt, driver.CapForms},
			Installed:    needSpring,
			Spares:       1,
			Owners:       true, // one thread per owner on the process's registries
		}
	}
	pubsub := spring("spring-lock-pubsub", "pubsub", "Spring's RedisLockRegistry in PUB_SUB_LOCK mode (waiters wake on an unlock message)")
	// A lease that runs out publishes nothing: a waiter then waits out its
	// tryLock's wait, or a lock()'s whole expireAfter, before it tries again.
	pubsub.TTLWakeups = true
	return []Driver{
		spring("spring-lock-spin", "spin", "Spring's RedisLockRegistry in SPIN_LOCK mode (polls every 100 ms)"),
		pubsub,
	}
}

// needSpring reports a missing java or a RedisLockRegistry driver that was
// not built (make deps builds it).
func needSpring(dir string) error {
	if _, err := exec.LookPath("java"); err != nil {
		return errors.New("java is not installed (Debian package openjdk-17-jre-headless): run make deps")
	}
	jar := filepath.Join(dir, "target", "spring-lock-driver.jar")
	if _, err := os.Stat(jar); err != nil {
		return fmt.Errorf("its jar %s is not built (needs Maven, Debian package maven): run make deps", jar)
	}
	return nil
}
