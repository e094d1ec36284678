package catalog

import (
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// RedissonObject is the Java driver serving one of Redisson's permit
// objects (driver.sh --lock lock: semaphore, permit-semaphore, latch),
// announcing capability, as the subject name: the driver of the redisson
// subjects (impl/drivers/redisson-java) at the pom's Redisson, with the
// same releases (AtRelease builds any Redisson release it supports into the
// cache). It is no lock, so it is not among Drivers: workloads/permits
// drives it.
func RedissonObject(name, lock, capability, doc string) Driver {
	return Driver{
		Name: name, Dir: "redisson-java", Command: []string{"sh", "driver.sh", "--lock", lock},
		Doc:          doc + " (Redisson " + redissonPinned + ", Java) over the driver protocol",
		Capabilities: []string{capability},
		Installed:    needRedisson("target"),
		Release:      redissonPinned, releases: redissonReleases(),
	}
}

// Versions returns how d runs other releases of its library than the one
// it pins (nil: it runs one release only); AtRelease builds one.
func (d Driver) Versions() *subject.Versions { return d.versions() }
