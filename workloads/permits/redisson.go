package permits

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// redissonDriver returns the options of the Java driver serving kind
// (--lock kind, announcing capability) as subject name, at the pom's
// Redisson, and what says whether it can run here.
func redissonDriver(name, kind, capability string) (driver.Options, func() error) {
	d, err := catalog.DriversDir()
	d = filepath.Join(d, "redisson-java")
	opts := driver.Options{
		Name: name, Dir: d, Command: []string{"sh", "driver.sh", "--lock", kind},
		Capabilities: []string{capability}, StartTimeout: 60 * time.Second,
	}
	installed := func() error {
		if err != nil {
			return err
		}
		if _, err := exec.LookPath("java"); err != nil {
			return errors.New("java is not installed: run make deps")
		}
		if _, err := os.Stat(filepath.Join(d, "target", "redisson-driver.jar")); err != nil {
			return errors.New("the Redisson driver is not built: run make deps")
		}
		return nil
	}
	return opts, installed
}

// redissonPermitSemaphore is Redisson's RPermitExpirableSemaphore behind
// the Java driver (--lock permit-semaphore), at the pom's Redisson.
func redissonPermitSemaphore() Subject {
	opts, installed := redissonDriver("redisson-permit-semaphore", "permit-semaphore", driver.CapPermitSemaphore)
	return Subject{
		Name:        "redisson-permit-semaphore",
		Doc:         "Redisson's RPermitExpirableSemaphore (getPermitExpirableSemaphore, the pom's Redisson, Java) over the driver protocol",
		OpenPermits: driver.OpenPermitSemaphores(opts),
		Installed:   installed,
	}
}

// redissonLatch is Redisson's RCountDownLatch behind the Java driver
// (--lock latch), at the pom's Redisson.
func redissonLatch() Subject {
	opts, installed := redissonDriver("redisson-latch", "latch", driver.CapLatch)
	return Subject{
		Name:      "redisson-latch",
		Doc:       "Redisson's RCountDownLatch (getCountDownLatch, the pom's Redisson, Java) over the driver protocol",
		OpenLatch: driver.OpenLatches(opts),
		Installed: installed,
	}
}
