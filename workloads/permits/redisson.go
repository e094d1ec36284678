package permits

import (
	"time"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// javaObject is one of Redisson's permit objects behind the Java driver
// (impl/drivers/redisson-java, --lock lock), a subject at any release of
// Redisson the driver supports.
type javaObject struct {
	name, lock, capability, doc string
	// fill sets the subject's Open, OpenPermits or OpenLatch.
	fill func(s *Subject, opts driver.Options)
}

// javaObjects are Redisson's RSemaphore, RPermitExpirableSemaphore and
// RCountDownLatch.
var javaObjects = []javaObject{
	{
		name: "redisson-semaphore", lock: "semaphore", capability: driver.CapSemaphore,
		doc:  "Redisson's RSemaphore, getSemaphore",
		fill: func(s *Subject, opts driver.Options) { s.Open = driver.OpenSemaphores(opts) },
	},
	{
		name: "redisson-permit-semaphore", lock: "permit-semaphore", capability: driver.CapPermitSemaphore,
		doc:  "Redisson's RPermitExpirableSemaphore, getPermitExpirableSemaphore",
		fill: func(s *Subject, opts driver.Options) { s.OpenPermits = driver.OpenPermitSemaphores(opts) },
	},
	{
		name: "redisson-latch", lock: "latch", capability: driver.CapLatch,
		doc:  "Redisson's RCountDownLatch, getCountDownLatch",
		fill: func(s *Subject, opts driver.Options) { s.OpenLatch = driver.OpenLatches(opts) },
	},
}

// driver is the catalog's driver of the object, at the pom's Redisson.
func (o javaObject) driver() catalog.Driver {
	return catalog.RedissonObject(o.name, o.lock, o.capability, o.doc)
}

// subject is the object served by d (the pom's Redisson, or a release's
// build from AtRelease).
func (o javaObject) subject(d catalog.Driver) Subject {
	dir, _ := d.WorkDir() // an error is Check's, which Installed reports
	opts := driver.Options{
		Name: d.Name, Dir: dir, Command: d.Command,
		Capabilities: d.Capabilities, StartTimeout: 60 * time.Second,
	}
	s := Subject{Name: d.Name, Doc: d.Doc, Release: d.Release, Installed: d.Check}
	o.fill(&s, opts)
	return s
}

// javaSubjects are the Java objects at the pom's Redisson.
func javaSubjects() map[string]Subject {
	out := map[string]Subject{}
	for _, o := range javaObjects {
		out[o.name] = o.subject(o.driver())
	}
	return out
}

// Libraries are the objects of libraries people run (Redisson's, at the
// pom's release), as a matrix names them: the scoreboard's rows of
// semaphores and latches.
func Libraries() []subject.Subject {
	var out []subject.Subject
	for _, o := range javaObjects {
		out = append(out, asSubject(o.subject(o.driver())))
	}
	return out
}
