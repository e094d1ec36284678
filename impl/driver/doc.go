// Package driver runs locks written in any language as lockcheck subjects:
// lockcheck starts an external program, the driver, once per logical client
// process and talks to it over the driver's stdin and stdout in JSON Lines.
// A Maker from this package implements impl.Maker and its handles implement
// impl.Locker, so the harness drives an external lock exactly as it drives a
// Go one. Serve is the other side of the protocol, for drivers written in Go.
//
// # Processes and owners
//
// A logical client (a Jepsen process, owner token "p<id>") issues one op at a
// time, and lockcheck's client faults act on a whole client process: a stall
// is a SIGSTOP of the driver's process group (its watchdog threads stop too,
// as in a GC pause or a frozen VM), a crash is a SIGKILL. By default a driver
// process hosts one owner: every lock it takes is taken by that owner
// (Redisson's clientId:threadId of one thread), taking a lock it already
// holds is a reentry, and the protocol is strictly request/response.
//
// Applications run many threads on one client instance, and many real bugs
// need that (a shared renewal map, a shared pub/sub entry, thread ids). A
// driver that announces capability "owners" (protocol 2) hosts several
// owners in one process, sharing one client instance: each owner is a thread
// of its own (Java), a task (node, Python) or a goroutine (Go), and its owner
// identity is that thread's, never the process's. See "Owners" below for what
// changes on the wire and what a failure means for the owners of a process.
//
// # Protocol, version 2 (and version 1)
//
// Version 2 is version 1 plus owners (below). lockcheck serves drivers of
// both: a driver's banner says its version, and hello carries the version
// lockcheck speaks to it (the lower of the two). A version 1 driver, or one
// without capability "owners", hosts one owner per process.
//
// Every message is one JSON object on one line (UTF-8, '\n'-terminated).
//
// Startup. The driver's first line on stdout is its banner, printed before it
// reads anything:
//
//	{"protocol":2,"driver":"node-redisson","version":"1.0.4","capabilities":["reentrant","watchdog","owners"]}
//
// "topologies" (optional) lists what hello may name: "single", "sentinel",
// "cluster", "redlock"; a banner without it supports "single" only, and a run on a
// topology the banner lacks refuses the driver (scenarios skip it, saying so).
//
// Capabilities, all optional: "reentrant" (the same driver may lock a lock it
// holds again; one unlock releases one hold), "fair" (grants follow request
// order), "fenced" (every ok reply to lock and trylock carries "token", a
// fencing token that strictly increases with every grant of the lock),
// "watchdog" (lease_ms <= 0 asks for a hold renewed in the background until
// unlock), "holdcount" (the holdcount request), "cycle" (the cycle request),
// "owners" (protocol 2: several owners in one process, see Owners),
// "interrupt" (with "owners": the interrupt request, see Interrupts),
// "rwlock" (the lock is a read-write lock: lock, trylock, unlock and
// holdcount requests carry "mode", "read" or "write", and act on that side
// of the owner's lock; a request without "mode" is a write, so a client
// that knows nothing of modes drives the write side as an exclusive lock),
// "shared-objects" (hello's "shared_objects" is honoured, see below),
// "forms" (lock, trylock and unlock requests may carry "form_draw", see
// Call forms below).
// A driver without "watchdog" treats lease_ms <= 0 as a lease of
// watchdog_ms.
//
// Requests. lockcheck then sends requests, one at a time per owner: it sends
// an owner's next request only after the reply to its previous one (a driver
// with one owner therefore sees strictly one request at a time). Every request has "id" (1, 2, ...),
// "op", and "timeout_ms", the time the driver has to answer. Replies carry the
// request's "id" and a "status":
//
//	"ok"     it happened (hello accepted, lock granted, one hold released, ...)
//	"fail"   it definitely did not happen: not obtained in time, or unlock by
//	         a driver that does not hold the lock
//	"error"  anything else, with "error": a message. The outcome is unknown:
//	         lockcheck records the op as info and retires the client (its
//	         driver is killed; a new client with a new driver takes over).
//	         Add "redis_error": true when Redis itself answered the command
//	         with an error reply (WRONGTYPE, NOSCRIPT, ...): an acquire refused
//	         by Redis is then recorded as fail, as for Go locks.
//
// The requests:
//
//	{"id":1,"op":"hello","protocol":2,"timeout_ms":10000,
//	 "redis":["127.0.0.1:40211"],"username":"","password":"","db":0,
//	 "client":"p3","watchdog_ms":1500,"seed":7}
//	    Connect to Redis. "redis" lists addresses (one for a single server;
//	    it is a fault proxy's address when the run injects network faults);
//	    with "topology":"sentinel" they are the Sentinels, "master_name"
//	    names the master they monitor and "sentinel_password" is theirs
//	    ("password" stays the data nodes'); with "topology":"cluster" they
//	    are seed nodes of a Redis Cluster; with "topology":"redlock" they
//	    are N independent masters (no replication between them) and the
//	    lock is a quorum of them (the RedLock), each with "password". No
//	    "topology" means one server;
//	    "client" is the logical client's name, for logs and client ids;
//	    "watchdog_ms" is the lease of watchdog-renewed holds (configure the
//	    library's watchdog timeout with it); "read_timeout_ms" (optional)
//	    is how long lockcheck's own clients wait for a reply: a driver
//	    whose client has such a setting may use it (a Go lock served by
//	    lockcheck does, so it has the client an in-process run gives it;
//	    a library's own default is what its users run, and may stay);
//	    "seed" seeds any randomness the
//	    driver owns; "owners" (protocol 2, only to a driver with capability
//	    owners) is how many owners the process will host at most (absent:
//	    one, and no request names an owner); "shared_objects": true (only
//	    to a driver with capability shared-objects) asks it to make each
//	    lock object once, at the first request for its name (and mode),
//	    and to serve every later request of every owner on it, as an
//	    application keeps one lock object in a field (absent: the driver
//	    makes its objects as it always does; bugs that an object carries
//	    from one hold to the next show only when objects are shared).
//	    Reply ok once connected, error when it cannot connect.
//	{"id":2,"op":"lock","name":"lockcheck:9f3a:l0","lease_ms":0,"timeout_ms":5000}
//	    Block until granted: ok (with "token" when fenced). A driver whose
//	    library can give up cleanly (leaving nothing behind in Redis) may
//	    reply fail when timeout_ms runs out; otherwise it just does not
//	    answer, and lockcheck kills it (info).
//	{"id":3,"op":"trylock","name":"lockcheck:9f3a:l0","wait_ms":150,"lease_ms":2000,"timeout_ms":5000}
//	    Wait at most wait_ms: ok (with "token" when fenced) or fail.
//	    A driver with capability fair may add "enqueued" to lock and trylock
//	    replies: when the request joined the lock's queue (CLOCK_MONOTONIC
//	    nanoseconds, as observed by the driver: late rather than early), for
//	    the fairness checker.
//	{"id":4,"op":"unlock","name":"lockcheck:9f3a:l0","timeout_ms":5000}
//	    Release one hold: ok, or fail when this driver holds no hold.
//	{"id":5,"op":"holdcount","name":"lockcheck:9f3a:l0","timeout_ms":5000}
//	    ok with "count": how many holds this driver has (capability holdcount).
//	{"id":6,"op":"token","name":"lockcheck:9f3a:l0","timeout_ms":5000}
//	    ok with "token": the fencing token of the current hold (capability
//	    fenced). lockcheck takes the token from the acquire's reply only: a
//	    fenced driver's ok to lock or trylock without one ends that op in
//	    an error (outcome unknown), never in a token asked for later.
//	{"id":7,"op":"cycle","name":"lockcheck:9f3a:l0","lease_ms":0,"duration_ms":1000,"log":true,"timeout_ms":6000}
//	    Benchmarks (capability cycle): the driver locks and unlocks the lock
//	    by itself, back to back, for duration_ms, each lock waiting at most
//	    until the cycle ends, so that a benchmark measures the library and
//	    not one protocol round trip per call. ok with "count" (grants within
//	    duration_ms), with "log" also "grants" ([requested, granted,
//	    released] of every hold, CLOCK_MONOTONIC nanoseconds: lockcheck reads
//	    the same clock) and "open" (when the last lock was requested, if it
//	    was still waiting when the cycle ended). Failure: a call that fails,
//	    or is still pending at timeout_ms, ends the cycle with error and no
//	    counts; the driver may then hold the lock (unknown), and lockcheck
//	    ends it. A duration_ms that leaves the driver too little of
//	    timeout_ms to finish its last calls is answered with error at once.
//
// Call forms. Applications make one call many ways (Redisson's
// lock(2, SECONDS) and lockAsync(2000, MILLISECONDS, threadId); tryLock()
// and tryLock(-1, lease, unit); a blocking acquire with or without a
// timeout), and real bugs live in one form only. A driver with capability
// "forms" lists, for each lock, trylock and unlock request, the forms of
// the call that fit the request's wait and lease, in an order of its own
// that starts with its default form; a request with "form_draw" (a number
// from 0 to 2^32-1, drawn by lockcheck from the run's seed) is made in
// form form_draw mod their number, and the reply (ok, fail or error) names
// it in "form", in the library's terms:
//
//	{"id":3,"op":"trylock","name":"lockcheck:9f3a:l0","wait_ms":0,"lease_ms":2000,"form_draw":2864,"timeout_ms":5000}
//	{"id":3,"status":"ok","form":"tryLock(-1, 2000, MILLISECONDS)"}
//
// Without "form_draw" the driver makes its default form. The same draw with
// the same arguments makes the same form, so a run replays. Each form keeps
// the request's meaning and bounds: a form that cannot give up by
// timeout_ms (a blocking acquire with no timeout) is answered as a lock
// request is (fail if it can give up cleanly, else no answer). A driver may
// announce "forms" and still make one form for some requests (no "form" in
// the reply). lockcheck records the form in the op (model.Op.Form).
//
// Lock names are complete Redis key names: lockcheck prefixes them per run,
// the driver uses them as they are. An op the driver does not know is
// answered with error.
//
// # Semaphores
//
// A driver with capability "semaphore" serves a counting semaphore
// (Redisson's RSemaphore) named by "name", with "permits" the permit count
// (an addition to version 1 and 2: older drivers and lockcheck's lock
// requests are unchanged). Nothing is owned: any owner may release.
//
//	{"id":8,"op":"sem_tryacquire","name":"lockcheck:9f3a:s0","permits":2,"wait_ms":500,"timeout_ms":5000}
//	    Take permits at once, waiting at most wait_ms: ok, or fail.
//	{"id":9,"op":"sem_acquire","name":"lockcheck:9f3a:s0","permits":1,"timeout_ms":5000}
//	    Block until taken: ok; a driver that can give up cleanly answers
//	    fail before timeout_ms runs out.
//	{"id":10,"op":"sem_release","name":"lockcheck:9f3a:s0","permits":1,"timeout_ms":5000}
//	{"id":11,"op":"sem_addpermits","name":"lockcheck:9f3a:s0","permits":-1,"timeout_ms":5000}
//	    Give permits back; change the permits by "permits" (< 0 removes
//	    them): ok.
//	{"id":12,"op":"sem_trysetpermits","name":"lockcheck:9f3a:s0","permits":3,"timeout_ms":5000}
//	    Set the permits if the semaphore was never set: ok, or fail.
//	{"id":13,"op":"sem_available","name":"lockcheck:9f3a:s0","timeout_ms":5000}
//	    ok with "count": the available permits.
//
// A driver with capability "permit-semaphore" serves a semaphore whose
// permits have ids and leases (Redisson's RPermitExpirableSemaphore), one
// permit a request, with the same additions. A permit id is the driver's
// string, which lockcheck passes back as it came; lease_ms absent or 0 is a
// permit that never expires.
//
//	{"id":14,"op":"psem_tryacquire","name":"lockcheck:9f3a:p0","wait_ms":500,"lease_ms":300,"timeout_ms":5000}
//	    Take one permit, waiting at most wait_ms: ok with "permit_id", or
//	    fail. An ok without "permit_id" is an error (outcome unknown).
//	{"id":15,"op":"psem_acquire","name":"lockcheck:9f3a:p0","lease_ms":300,"timeout_ms":5000}
//	    Block until taken: ok with "permit_id"; a driver that can give up
//	    cleanly answers fail before timeout_ms runs out.
//	{"id":16,"op":"psem_release","name":"lockcheck:9f3a:p0","permit_id":"6a0c…","timeout_ms":5000}
//	    Give the permit back: ok, or fail when it is not held (released
//	    already, never taken, its lease ran out, or an id the library
//	    cannot read); lockcheck's client answers fail as
//	    impl.ErrPermitNotHeld.
//	{"id":17,"op":"psem_addpermits","name":"lockcheck:9f3a:p0","permits":1,"timeout_ms":5000}
//	{"id":18,"op":"psem_trysetpermits","name":"lockcheck:9f3a:p0","permits":3,"timeout_ms":5000}
//	{"id":19,"op":"psem_available","name":"lockcheck:9f3a:p0","timeout_ms":5000}
//	    As sem_addpermits, sem_trysetpermits and sem_available; the
//	    available permits count the expired ones back.
//
// A driver with capability "latch" serves a count-down latch (Redisson's
// RCountDownLatch), with the same additions.
//
//	{"id":20,"op":"latch_trysetcount","name":"lockcheck:9f3a:c0","count":2,"timeout_ms":5000}
//	    Set the count if the latch does not exist: ok, or fail.
//	{"id":21,"op":"latch_countdown","name":"lockcheck:9f3a:c0","timeout_ms":5000}
//	    Count down once (at 0 the latch opens and is deleted): ok.
//	{"id":22,"op":"latch_await","name":"lockcheck:9f3a:c0","wait_ms":2500,"timeout_ms":5000}
//	    Wait at most wait_ms (absent or 0: one look; below 0: until
//	    timeout_ms) for the count to reach 0: ok when it did, fail when
//	    not. The driver gives up 250 ms before timeout_ms runs out
//	    (LatchGiveUp), answering fail; lockcheck's client answers a fail
//	    whose wait_ms that cut short as the deadline's (impl.ErrNotObtained
//	    with context.DeadlineExceeded), any other as false.
//	{"id":23,"op":"latch_count","name":"lockcheck:9f3a:c0","timeout_ms":5000}
//	    ok with "count": the count (0: open or never set).
//
// # Owners
//
// With "owners" in hello, the process hosts up to that many owners, all on
// the one client instance hello connected:
//
//   - Every request but hello carries "owner": the owner's name ("p7"), as
//     the logical client it is. The driver gives each owner an identity of
//     its own, made on its first request: a thread (Java: Redisson's owner is
//     clientId:threadId, so each owner's requests run on that owner's
//     thread), a task or async context (node, Python), a goroutine's handle
//     (Go). Holds, reentries and unlocks are per owner: a lock held by owner
//     p7 is held by another owner for p8, in the same process.
//   - Requests of different owners overlap: lockcheck sends owner p8's
//     request while p7's is still running. The driver answers each as it
//     finishes, in any order; lockcheck routes each reply by its "id". A
//     reply whose id is not due (never sent, or answered already) is a
//     protocol violation.
//   - An owner's request runs on that owner alone: a lock request blocked
//     for p7 must not hold up p8's requests (no request is served on the
//     thread that reads stdin).
//
// What a failure means for the owners of a process. The process is the unit
// of failure, as in an application:
//
//   - An error reply to any owner (outcome unknown) ends the process:
//     lockcheck kills it, and every owner in it is retired, as in a crash.
//     Each owner's request still in flight ends as info; an owner with none
//     meets the dead process at its next request (info, retired). Their
//     holds are left to run out.
//   - A late reply (none within timeout_ms plus the grace, for any owner),
//     garbage, a reply not due or an exit (a driver crash) ends the process
//     the same way, for all its owners.
//   - lockcheck may stop the process (SIGSTOP, a client stall) while owners'
//     requests are in flight: the time it stays stopped does not count
//     against their timeout_ms and grace (lockcheck extends its wait by it);
//     the driver's own clock ran on, so a request may answer fail or error
//     on waking. A SIGKILL (a client crash) is the crash of every owner.
//   - A dead owner is a dead process: lockcheck never retires one owner of
//     a process that goes on. New owners start in a new process.
//
// # Stalls
//
// Any reply may carry "stalls": [[start, end], ...], CLOCK_MONOTONIC
// nanoseconds of each time since the previous reply that the driver
// process itself woke late (a watcher thread that asks to wake every 5 ms
// and notes each wake-up more than 40 ms late: a starved CPU, a GC pause, a
// SIGSTOP). lockcheck records each as a hiccup fault window of the owners
// the process hosts (Options.OnStall), so that a reply a stall held up, or
// a renewal it delayed, is judged as the fault it was, not as the lock's.
// A driver that reports none is judged as before. The Java drivers report
// them (java-common StallWatch), and so does Serve (stallwatch.go), which
// serves Go locks in processes of their own for process pauses.
//
// # Interrupts
//
// A driver that announces "interrupt" (with "owners", protocol 2) lets
// lockcheck interrupt an owner's call in flight, as Thread.interrupt()
// interrupts a Java thread blocked in lockInterruptibly or tryLock, or a
// cancelled context a Go call. lockcheck then names the owner of every
// request, even in a process of one owner (hello's "owners" is at least 1).
//
//   - A lock, trylock or unlock that lockcheck may interrupt carries
//     "interruptible": true. The driver makes it the way its library makes
//     a call that an interrupt can cut off (Redisson: the thread-bound
//     lockInterruptibly(lease) and tryLock(wait, lease) on the owner's
//     thread, where it otherwise calls their async forms).
//   - {"id":9,"op":"interrupt","owner":"p7","target":8,"timeout_ms":1000}
//     interrupts request 8 of owner p7 if it is still being served (its
//     thread's interrupt, a task's cancellation): ok; fail when it is not
//     (answered already, or never came). The interrupt is served at once,
//     overlapping the request it names; it must never reach a later
//     request of the owner.
//   - The interrupted request is answered as the library answers an
//     interrupted call: an acquire that gave up cleanly is fail with
//     "interrupted": true (nothing acquired, nothing left behind: Java's
//     Lock contract for InterruptedException); one whose outcome the
//     library leaves unknown is error (Redisson's RedisException wrapping
//     the InterruptedException of a command in flight), which ends the
//     process as any error does; an acquire granted before the interrupt
//     came is ok.
//   - lockcheck sends an interrupt when the caller cancels the op's
//     context (a client-interrupt fault, a cancelled acquire of the
//     workload) and waits for the interrupted request's own reply, within
//     its timeout_ms plus the grace, as for any request. A driver without
//     "interrupt" meets a cancelled call as before: its process ends.
//
// Start-up. lockcheck may start a driver before any logical client needs it
// (a spare, for drivers slow to start such as a JVM): the spare says hello
// with a client name of its own ("spare1", ...) and then serves whichever
// logical client it is handed to; its owner identity is still the process.
//
// Deadlines. A reply that does not arrive within timeout_ms plus a grace
// (Options.ReplyGrace) ends the op as info; the driver's process group is
// killed and the client replaced (every owner in it, see Owners). So is a
// driver that prints anything that is not a reply it owes (garbage, a reply
// with an id not due), or exits.
//
// Stderr is free for logs: lockcheck keeps its last lines and quotes them
// when a driver fails.
//
// Exit. On end of input (lockcheck closed stdin) the driver exits promptly
// with status 0 without unlocking anything: lockcheck has already released
// what it meant to release, and what is still held runs out with its lease,
// as after a crash. A driver that cannot start (bad arguments, a missing
// library) prints why on stderr and exits with a non-zero status before or
// instead of its banner.
package driver
