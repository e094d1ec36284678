// Package permits runs workloads on semaphores (Redisson's RSemaphore and
// anything that meets impl.Semaphore): rounds on fresh semaphores whose
// permits an admin sets or adds while workers wait, then take and give
// back one to Plan.MaxN permits at a time; it records a model.History of
// sem-* ops and checks it with the semaphore checkers (model.Check
// dispatches on the kinds).
//
// A semaphore's run (counting or permit) ends with a round of handovers
// of one permit between pairs of workers (Plan.Handovers), for waiters
// that miss the message of a release that lands as they register for it.
//
// It is separate from the lock runner (package workloads), whose workers
// drive impl.Locker: a semaphore has no owner and no lease. `lockcheck run`
// sends these subjects here (LookupContext resolves NAME@VERSION, RunInto
// writes the run directory). The scenarios whose faults act on these
// objects (scenario.Scenario.Permits) run them through Run's Nemesis:
// workers stall and crash as faults.Clients, and the history records each
// window with the processes it hit.
package permits
