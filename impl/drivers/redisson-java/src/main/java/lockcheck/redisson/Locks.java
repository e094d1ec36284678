package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Cycle;
import lockcheck.driver.DeadlineInterrupt;
import lockcheck.driver.Library;
import lockcheck.driver.Replies;

import org.redisson.Redisson;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisConnectionException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The requests of protocols 1 and 2 on one Redisson lock kind, on one
 * RedissonClient. The owner of a request is the thread that serves it
 * (Redisson's owner is clientId:threadId): with protocol 1 the main thread,
 * the process's one owner; with owners (protocol 2) each owner's own thread,
 * so that N owners are N threads of one client, as in an application.
 *
 * <ul>
 * <li>lock: {@code lockAsync(lease, owner)}, Redisson's lock(): no reply
 * until granted (error at the deadline, see lockBlocking).
 * <li>trylock: {@code tryLockAsync(wait_ms, lease, owner)}: ok, or fail when
 * Redisson says false, which it says only after an attempt Redis answered with
 * the lock's remaining lease (held by another owner).
 * <li>unlock: {@code unlockAsync(owner)}; {@link IllegalMonitorStateException}
 * (not held by this owner) is fail. The RedLock's is its {@code unlock()},
 * which never fails (see unlock).
 * <li>multilock, redlock: the same calls on a RedissonMultiLock or
 * RedissonRedLock over the members of the request's name (MultiLocks).
 * <li>the fenced lock: {@code lockAndGetTokenAsync} and
 * {@code tryLockAndGetTokenAsync}, whose null is fail (see lockBlocking).
 * <li>an "interruptible" lock or trylock (the request may be interrupted):
 * Redisson's thread-bound {@code lockInterruptibly(lease)} and
 * {@code tryLock(wait_ms, lease)} on the owner's thread, which the protocol's
 * interrupt request cuts off (Thread.interrupt): fail, "interrupted". An
 * interrupted unlock's future is cancelled and answered with error
 * (unknown), as Redisson's synchronous unlock() throws then.
 * <li>the fair lock (Redisson's, see {@link QueuedFairLock}): lock and trylock
 * replies carry "enqueued" (CLOCK_MONOTONIC ns) when the request was queued.
 * <li>the read-write lock ({@code getReadWriteLock}): every request's "mode"
 * ("read" or "write"; absent: "write") picks {@code readLock()} or
 * {@code writeLock()}, whose lock, trylock, unlock and holdcount are RLock's.
 * </ul>
 * With hello's "shared_objects" (capability shared-objects) the client
 * keeps one lock object per name and mode, made at its first request and
 * served to every later request of every owner, as an application keeps an
 * RLock in a field; otherwise each request gets a new object (see lock).
 * A lease_ms of 0 asks for a watchdog hold (leaseTime -1). Every reply is due
 * within timeout_ms: a Redisson future still pending at the deadline, 25 ms
 * before then, is answered with error (unknown outcome; the future is left
 * alone, and lockcheck ends the process).
 */
final class Locks implements Library {
    private final Options opts;
    private RedissonClient redisson;
    /** hello's shared_objects: objects holds the lock objects, by name and mode. */
    private volatile boolean sharedObjects;
    private final ConcurrentHashMap<String, RLock> objects = new ConcurrentHashMap<>();

    Locks(Options opts) {
        this.opts = opts;
    }

    @Override
    public String driver() {
        return opts.driverName();
    }

    @Override
    public String version() {
        return Driver.redissonVersion();
    }

    /**
     * The kind's capabilities, "interrupt" (see {@link #interruptible}),
     * "shared-objects" (see {@link #lock}) and "forms" (see {@link #formed}).
     */
    @Override
    public List<String> capabilities() {
        List<String> caps = new ArrayList<>(opts.kind.capabilities);
        if (opts.kind.locks()) {
            caps.add("interrupt"); // the lock requests' (a semaphore serves none)
            caps.add("shared-objects");
            caps.add("forms"); // the fenced lock's calls have one form: it ignores form_draw
        }
        return caps;
    }

    @Override
    public List<String> topologies() {
        return Topology.SUPPORTED;
    }

    /** Owners are threads of the one RedissonClient (see the class comment). */
    @Override
    public boolean owners() {
        return true;
    }

    /** The owner of the request being served: the calling thread's id. */
    private static long owner() {
        return Thread.currentThread().getId();
    }

    @Override
    public LineHook lineHook() {
        return Misbehave.fromEnv();
    }

    @Override
    public ObjectNode errorOf(Throwable e) {
        return Outcome.of(e);
    }

    @Override
    public ObjectNode handle(JsonNode req, long timeout, long deadline) throws Exception {
        String op = req.path("op").asText("");
        if (Semaphores.serves(op)) {
            return Semaphores.handle(redisson, op, req, deadline);
        }
        if (PermitSemaphores.serves(op)) {
            return PermitSemaphores.handle(redisson, op, req, deadline);
        }
        if (Latches.serves(op)) {
            return Latches.handle(redisson, op, req, deadline);
        }
        return switch (op) {
            case "hello" -> hello(req, deadline);
            case "lock" -> formed(req) ? inForm(req, CallForms.lock(lock(req), leaseOf(req), deadline, () -> lockBlocking(req, deadline)))
                    : interruptible(req) ? lockInterruptibly(req, deadline) : lockBlocking(req, deadline);
            case "trylock" -> formed(req) ? inForm(req, CallForms.tryLock(lock(req), waitOf(req), leaseOf(req), deadline, () -> acquire(req, waitOf(req), deadline)))
                    : interruptible(req) ? tryLockInterruptibly(req, deadline) : acquire(req, waitOf(req), deadline);
            case "unlock" -> formed(req) && opts.kind != Options.Kind.REDLOCK && !interruptible(req)
                    ? CallForms.make(req, CallForms.unlock(lock(req), () -> unlock(req, deadline)))
                    : unlock(req, deadline);
            case "holdcount" -> Replies.ok().put("count", await(lock(req).getHoldCountAsync(), deadline));
            case "token" -> token(req, deadline);
            case "cycle" -> Cycle.run(req, deadline, opts.commandTimeoutMs, () -> new CycleLock(this, opts, owner(), req, deadline));
            default -> Replies.error("unknown op \"" + op + "\"", false);
        };
    }

    /**
     * Whether req is made in the form it draws (capability "forms", see
     * {@link CallForms}): it carries "form_draw", and the kind's calls are
     * RLock's (the fenced lock's token calls have one form).
     */
    private boolean formed(JsonNode req) {
        return req.has("form_draw") && opts.kind != Options.Kind.FENCED;
    }

    /**
     * Req in its drawn form; an interruptible request draws from the
     * thread-bound forms only (all but the default), which the protocol's
     * interrupt can cut off.
     */
    private ObjectNode inForm(JsonNode req, List<CallForms.Form> forms) throws Exception {
        return CallForms.make(req, interruptible(req) ? forms.subList(1, forms.size()) : forms);
    }

    private static long waitOf(JsonNode req) {
        return Math.max(0, req.path("wait_ms").asLong(0));
    }

    private ObjectNode hello(JsonNode req, long deadline) throws InterruptedException {
        if (redisson != null) {
            return Replies.error("hello twice", false);
        }
        String unsupported = Compat.unsupported(opts.kind);
        if (unsupported != null) {
            return Replies.error(unsupported, false);
        }
        sharedObjects = req.path("shared_objects").asBoolean(false);
        redisson = connect(req, deadline);
        Driver.log("connected (" + req.path("topology").asText("single") + " " + req.path("redis")
                + ") as owner " + Compat.clientId(redisson) + ":" + owner() + " (owners: " + req.path("owners").asInt(1)
                + (sharedObjects ? ", one lock object per name" : "") + "), watchdog "
                + redisson.getConfig().getLockWatchdogTimeout() + " ms");
        warmUps(req.path("owners").asInt(1), deadline);
        return Replies.ok();
    }

    /**
     * Redisson.create within hello's deadline, tried again while time is
     * left. Most of hello's time goes to connecting (a loaded machine takes
     * seconds), so each try's connect timeout is three quarters of what is
     * left, at most 10 s; the warm-ups take the rest. Redisson bounds its
     * connections' first commands (SELECT, CLIENT SETNAME, PING) by the
     * command timeout, which a cold JVM on a loaded machine can miss: with
     * six busy loops on two cores, six drivers started at once each failed
     * their first try ("Unable to connect to Redis server", caused by CLIENT
     * SETNAME's timeout, the server up) and connected on the second. A later
     * try finds the JVM warmer. A server that stays down fails every try,
     * and hello fails with the last error once less than two command
     * timeouts and a second are left.
     */
    private RedissonClient connect(JsonNode req, long deadline) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            long connect = Math.max(100, Math.min(millisLeft(deadline) * 3 / 4, 10_000));
            try {
                return Redisson.create(Topology.config(req, opts, connect));
            } catch (RedisConnectionException e) {
                long left = millisLeft(deadline);
                if (left < 2L * opts.commandTimeoutMs + 1000) {
                    throw e;
                }
                Driver.log("connect, try " + attempt + ": " + causes(e) + "; " + left + " ms left, trying again");
                Thread.sleep(100);
            }
        }
    }

    private static long millisLeft(long deadline) {
        return (deadline - System.nanoTime()) / 1_000_000;
    }

    /** E's message and its causes', outermost first. */
    private static String causes(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = e; c != null && b.length() < 2000; c = c.getCause()) {
            b.append(b.isEmpty() ? "" : " <- ").append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
        }
        return b.toString();
    }

    /**
     * Warms up (warmUp) on this thread, or, for a process of several owners,
     * on up to 4 threads at once: 32 owner threads whose first TryLocks all
     * land on a cold client answered them 300–360 ms late (with it, still up
     * to 250 ms late on a loaded machine; more threads made hello itself
     * miss its start timeout there).
     */
    private void warmUps(int owners, long deadline) {
        if (!opts.kind.locks()) {
            return; // no lock to warm up
        }
        if (owners <= 1) {
            warmUp(owner(), deadline);
            return;
        }
        Thread[] ts = new Thread[Math.min(owners, 4)];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> warmUp(owner(), deadline), "lockcheck-warmup-" + i);
            ts[i].setDaemon(true);
            ts[i].start();
        }
        try {
            for (Thread t : ts) {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes the paths of a first contended acquire once, on a scratch lock of
     * this owner's, before hello answers: Redisson loads its scripts,
     * subscribes its pub/sub channel and the JVM compiles the code on the
     * first call, which otherwise lands on the run's first TryLock (a 20–95
     * ms wait answered after 350–500 ms). The owner takes the scratch lock, a
     * second thread id's tryLock waits 300 ms and is refused, the owner
     * releases it: nothing is left in Redis. (A wait of 20 ms was too short
     * for Redisson 4.7.0's first subscription: "Unable to acquire
     * subscription lock", and a replacement client's first TryLock then
     * answered 0.5–1.1 s late.) A failure is logged, not answered: the run
     * then starts cold, as it did before.
     */
    private void warmUp(long owner, long deadline) {
        String name = "lockcheck:warmup:" + Compat.clientId(redisson) + ":" + owner;
        RLock l = lock(JsonNodeFactory.instance.objectNode().put("name", name));
        try {
            await(l.tryLockAsync(0, 2000, TimeUnit.MILLISECONDS, owner), deadline);
            try {
                await(l.tryLockAsync(300, 2000, TimeUnit.MILLISECONDS, owner + 1), deadline);
            } finally {
                await(l.unlockAsync(owner), deadline);
            }
        } catch (Exception e) {
            Driver.log("warm-up on " + name + " failed (the run starts cold): " + e);
        }
    }

    /**
     * Redisson's lock(): waits until granted (the fair lock queues it with
     * Redisson's fairLockWaitTimeout, as a Java caller's lock() does). It
     * cannot be cancelled: one still waiting at the deadline is answered
     * with error (unknown), and lockcheck replaces the process.
     *
     * <p>The fenced lock's lockAndGetToken is answered fail when its future
     * completes with null: Redisson completes it so, without the lock, when
     * the JVM's wall clock steps back while it waits (its wait of
     * Long.MAX_VALUE ms less a negative elapsed time overflows; see
     * repro/FencedClockStep.java). Null is its "not acquired" (as for
     * tryLockAndGetToken), never a grant: answering ok claimed a hold Redis
     * never gave, and lockcheck then asked for the token, which is the
     * counter's current value, another owner's.
     */
    private ObjectNode lockBlocking(JsonNode req, long deadline) throws Exception {
        long lease = leaseOf(req);
        if (opts.kind == Options.Kind.FENCED) {
            // Its lock has no threadId overload: the current thread is the owner's.
            long start = System.nanoTime();
            Long token = await(Compat.lockAndGetToken(lock(req), lease), deadline);
            if (token == null) {
                Driver.log("lockAndGetToken on " + req.path("name").asText() + " completed with null (not granted) after "
                        + (System.nanoTime() - start) / 1_000_000 + " ms: Redisson gave up a wait without a deadline");
                return Replies.fail();
            }
            return Replies.ok().put("token", token);
        }
        RLock l = lock(req);
        await(l.lockAsync(lease, TimeUnit.MILLISECONDS, owner()), deadline);
        return enqueued(l, Replies.ok());
    }

    /**
     * Whether req may be interrupted (its "interruptible"), and the lock kind
     * has Redisson's thread-bound calls for it: all but the fenced lock,
     * whose lockAndGetToken has no threadId overload (its interrupted wait
     * is cancelled, as Redisson's synchronous calls cancel theirs, and
     * answered with error: see Outcome.await).
     */
    private boolean interruptible(JsonNode req) {
        return req.path("interruptible").asBoolean(false) && opts.kind != Options.Kind.FENCED;
    }

    /**
     * Redisson's lockInterruptibly(lease) on the owner's thread, as an
     * application thread calls it: an interrupt (the protocol's, or the
     * request's deadline) ends its wait with InterruptedException, which by
     * Java's Lock contract leaves the lock unacquired: fail, marked
     * "interrupted" when the interrupt was the protocol's.
     */
    private ObjectNode lockInterruptibly(JsonNode req, long deadline) {
        RLock l = lock(req);
        try (DeadlineInterrupt d = new DeadlineInterrupt(deadline)) {
            try {
                l.lockInterruptibly(leaseOf(req), TimeUnit.MILLISECONDS);
                return enqueued(l, Replies.ok());
            } catch (InterruptedException e) {
                return interruptedFail(d);
            }
        }
    }

    /** Redisson's tryLock(wait, lease) on the owner's thread: see lockInterruptibly. */
    private ObjectNode tryLockInterruptibly(JsonNode req, long deadline) {
        RLock l = lock(req);
        long wait = waitOf(req);
        try (DeadlineInterrupt d = new DeadlineInterrupt(deadline)) {
            try {
                boolean ok = l.tryLock(wait, leaseOf(req), TimeUnit.MILLISECONDS);
                return enqueued(l, ok ? Replies.ok() : Replies.fail());
            } catch (InterruptedException e) {
                return interruptedFail(d);
            }
        }
    }

    static ObjectNode interruptedFail(DeadlineInterrupt d) {
        return d.fired() ? Replies.fail() : Replies.fail().put("interrupted", true);
    }

    static ObjectNode enqueued(RLock l, ObjectNode rep) {
        long enqueued = Compat.enqueued(l);
        if (enqueued != 0) {
            rep.put("enqueued", enqueued);
        }
        return rep;
    }

    private ObjectNode acquire(JsonNode req, long wait, long deadline) throws Exception {
        try {
            return tryAcquire(req, wait, deadline);
        } catch (Exception e) {
            if (subscriptionTimeout(e)) {
                return Replies.fail();
            }
            throw e;
        }
    }

    private ObjectNode tryAcquire(JsonNode req, long wait, long deadline) throws Exception {
        long lease = leaseOf(req);
        if (opts.kind == Options.Kind.FENCED) {
            Long token = await(Compat.tryLockAndGetToken(lock(req), wait, lease, owner()), deadline);
            return token == null ? Replies.fail() : Replies.ok().put("token", token);
        }
        RLock l = lock(req);
        Boolean ok = await(l.tryLockAsync(wait, lease, TimeUnit.MILLISECONDS, owner()), deadline);
        return enqueued(l, Boolean.TRUE.equals(ok) ? Replies.ok() : Replies.fail());
    }

    /**
     * Whether e is Redisson's "Unable to acquire subscription lock after N
     * ms": a tryLock whose first attempt found the lock held (so it did not
     * acquire it) and whose subscription to the lock's channel then did not
     * come within what was left of its wait. Threads of one client that wait
     * on one lock queue for that subscription, so with many owners it comes
     * often. The synchronous tryLock answers it with false (it times the
     * subscription out itself and calls acquireFailed); tryLockAsync, which
     * the driver calls for its threadId overload, fails its future with the
     * exception instead. Either way nothing was acquired: fail, as an
     * application calling tryLock sees it.
     */
    private static boolean subscriptionTimeout(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof org.redisson.client.RedisTimeoutException && String.valueOf(c.getMessage()).startsWith("Unable to acquire subscription lock")) {
                return true;
            }
        }
        return false;
    }

    private ObjectNode unlock(JsonNode req, long deadline) throws Exception {
        try {
            if (opts.kind == Options.Kind.REDLOCK) {
                // RedissonRedLock's unlock() (on this, the owner's, thread),
                // which swallows every member's error; its unlockAsync is the
                // MultiLock's, which fails when any member was not held.
                lock(req).unlock();
                return Replies.ok();
            }
            await(lock(req).unlockAsync(owner()), deadline);
        } catch (IllegalMonitorStateException e) {
            return Replies.fail();
        }
        return Replies.ok();
    }

    private ObjectNode token(JsonNode req, long deadline) throws Exception {
        if (opts.kind != Options.Kind.FENCED) {
            return Replies.error("token: " + opts.driverName() + " is not fenced", false);
        }
        Long t = await(Compat.token(lock(req)), deadline);
        return Replies.ok().put("token", t == null ? 0 : t);
    }

    static long leaseOf(JsonNode req) {
        long lease = req.path("lease_ms").asLong(0);
        return lease > 0 ? lease : -1;
    }

    /**
     * The request's lock object. By default a new one per request (getLock
     * is cheap), so that nothing an object keeps (the lease of its last
     * leased grant, in Redisson's RedissonLock.internalLockLeaseTime) reaches
     * a later hold; the watchdog's bookkeeping is per client and lock name,
     * not per object. With shared objects, the one object of the request's
     * name and mode, made at its first request, as applications keep one:
     * what an object carries from one hold to the next then shows.
     */
    RLock lock(JsonNode req) {
        if (redisson == null) {
            throw new IllegalStateException("no hello yet");
        }
        String name = req.path("name").asText("");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("request without lock name");
        }
        String mode = req.path("mode").asText("write");
        RLock l = sharedObjects ? objects.computeIfAbsent(name + "\u0000" + mode, k -> newLock(name, mode)) : newLock(name, mode);
        // A request of this thread starts: what an earlier one left unread
        // (an interrupted or timed-out acquire) is not its queueing time.
        Compat.enqueued(l);
        return l;
    }

    /** A new lock object of the driver's kind for name (mode: the read-write lock's side). */
    private RLock newLock(String name, String mode) {
        return switch (opts.kind) {
            case LOCK -> redisson.getLock(name);
            case FAIR -> Compat.fair(redisson, name);
            case FENCED -> Compat.fenced(redisson, name);
            case SPIN -> Compat.spin(redisson, name);
            case RWLOCK -> "read".equals(mode)
                    ? redisson.getReadWriteLock(name).readLock()
                    : redisson.getReadWriteLock(name).writeLock();
            case MULTILOCK, REDLOCK -> MultiLocks.of(redisson, name, opts.members, opts.kind == Options.Kind.REDLOCK);
            case SEMAPHORE, PERMIT_SEMAPHORE, LATCH -> throw new IllegalArgumentException("--lock " + opts.kind.driver + " serves no locks");
        };
    }

    /**
     * Waits for f until deadline (System.nanoTime). A failed future throws
     * its cause; one still pending throws {@link Outcome.Timeout}.
     */
    static <T> T await(RFuture<T> f, long deadline) throws Exception {
        return Outcome.await(f.toCompletableFuture(), deadline);
    }
}
