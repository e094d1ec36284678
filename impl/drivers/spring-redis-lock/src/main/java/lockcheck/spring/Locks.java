package lockcheck.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import lockcheck.driver.Cycle;
import lockcheck.driver.Library;
import lockcheck.driver.Replies;
import org.springframework.integration.redis.util.RedisLockRegistry;

import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The requests of protocols 1 and 2 on RedisLockRegistry locks: the
 * library's lock is a ReentrantLock in the JVM (held by a thread) plus a
 * Redis key whose value is the registry's clientId, so one thread of one
 * process is one lockcheck owner. With protocol 1 every request is served on
 * one thread, the process's one owner; with owners (protocol 2) each owner's
 * requests on that owner's own thread, all on the process's registries, as
 * threads of an application share them. What this driver keeps of an
 * owner's holds is the serving thread's own (thread-local).
 *
 * <ul>
 * <li>lock: {@code Lock.lock()}: no reply until granted (it cannot be
 * cancelled: error at the deadline, see Protocol.Serving.OWNER_THREAD); an
 * "interruptible" lock is {@code Lock.lockInterruptibly()}, which the
 * protocol's interrupt ends: fail, "interrupted" (as an interrupted tryLock).
 * <li>trylock: {@code Lock.tryLock(wait_ms, MILLISECONDS)}: ok, or fail on
 * false, which the library answers only after its script found the key held
 * by another clientId (its first attempt is made whatever the wait).
 * <li>unlock: {@code Lock.unlock()}; "You do not own lock" (not held by this
 * thread) is fail, and so is the ConcurrentModificationException of a final
 * unlock whose key had expired or been taken over ("Lock was released in
 * the store due to expiration"): it released no hold of the lock. But the
 * same exception after the library's UNLINK script failed (a timeout) and
 * it fell back to DEL is error: the UNLINK script may have run and released
 * the hold (UnlinkFallback). With "form_draw", in one of two forms: {@code
 * unlock()}, or {@code unlock()} by a thread whose interrupt status is set
 * ({@link UnlockForms}).
 * <li>cycle: {@link Cycle} on one lock object, {@code tryLock(wait)} and
 * {@code unlock()}; PUB_SUB's tryLock may overstay its wait (see
 * impl/drivers/README.md), which the deadline then ends with error.
 * </ul>
 * The lease picks the registry (Registries): lease_ms &gt; 0 is a registry with
 * that expireAfter, lease_ms &lt;= 0 the watchdog registry (which renews
 * nothing before 6.4.0, where the driver announces no "watchdog"). A reentry goes to
 * the registry that holds the lock; one that asks for another lease than the
 * hold's is answered error without calling the library (a registry has one
 * expireAfter; lockcheck's workloads reenter with the hold's lease).
 */
final class Locks implements Library {
    /** "watchdog" only where the library renews (Compat.RENEWS: 6.4.0 and later). */
    private static final List<String> CAPABILITIES = Compat.RENEWS
            ? List.of("reentrant", "watchdog", "cycle", "interrupt", "forms")
            : List.of("reentrant", "cycle", "interrupt", "forms");
    private static final List<String> TOPOLOGIES = List.of("single");

    /** A lock this driver holds: through which registry, and how often. */
    private static final class Held {
        final long leaseKey;
        final Lock lock;
        int holds;

        Held(long leaseKey, Lock lock) {
            this.leaseKey = leaseKey;
            this.lock = lock;
        }
    }

    private final Options opts;
    private final Registries registries;
    /** The serving thread's (its owner's) holds, by lock name. */
    private final ThreadLocal<Map<String, Held>> held = ThreadLocal.withInitial(HashMap::new);
    /** The lease of the serving thread's last acquire (its unlock's registry when it holds none). */
    private final ThreadLocal<Long> lastLeaseKey = ThreadLocal.withInitial(() -> Registries.WATCHDOG);

    Locks(Options opts) {
        this.opts = opts;
        this.registries = new Registries(opts);
    }

    @Override
    public String driver() {
        return opts.mode.driver;
    }

    @Override
    public String version() {
        return Driver.libraryVersion();
    }

    @Override
    public List<String> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public List<String> topologies() {
        return TOPOLOGIES;
    }

    @Override
    public ObjectNode errorOf(Throwable e) {
        return Outcome.of(e);
    }

    /** Owners are threads sharing the registries (see the class comment). */
    @Override
    public boolean owners() {
        return true;
    }

    /** Serves req on the calling thread (the owner's). */
    @Override
    public ObjectNode handle(JsonNode req, long timeoutMs, long deadline) throws Exception {
        String op = req.path("op").asText("");
        return switch (op) {
            case "hello" -> hello(req, timeoutMs);
            case "lock" -> acquire(req, -1);
            case "trylock" -> acquire(req, Math.max(0, req.path("wait_ms").asLong(0)));
            case "unlock" -> UnlockForms.make(req, () -> unlock(name(req)));
            case "cycle" -> Cycle.run(req, deadline, opts.commandTimeoutMs,
                    () -> Cycle.of(obtain(name(req), Registries.leaseKey(req))));
            default -> Replies.error("unknown op \"" + op + "\"", false);
        };
    }

    private ObjectNode hello(JsonNode req, long timeoutMs) {
        if (registries.connected()) {
            return Replies.error("hello twice", false);
        }
        UnlinkFallback.check();
        long t0 = System.nanoTime();
        registries.connect(req, Math.max(100, Math.min(timeoutMs / 2, 10_000)));
        long t1 = System.nanoTime();
        registries.warmUp();
        long t2 = System.nanoTime();
        Driver.log("connected (" + req.path("redis") + ") in mode " + opts.mode.type + " in " + (t1 - t0) / 1_000_000
                + " ms, warmed up in " + (t2 - t1) / 1_000_000 + " ms; watchdog registry: expireAfter "
                + registries.watchdogMs() + " ms, " + (Compat.RENEWS ? "renewal every " + registries.watchdogMs() / 3 + " ms" : "no renewal"));
        return Replies.ok();
    }

    /** lock (wait -1) or trylock (wait_ms >= 0). */
    private ObjectNode acquire(JsonNode req, long wait) {
        try {
            return acquireOrInterrupted(req, wait);
        } catch (InterruptedException e) {
            return Replies.fail().put("interrupted", true); // nothing acquired (Lock's contract)
        }
    }

    private ObjectNode acquireOrInterrupted(JsonNode req, long wait) throws InterruptedException {
        String name = name(req);
        long key = Registries.leaseKey(req);
        Held h = held.get().get(name);
        if (h != null && h.leaseKey != key) {
            return Replies.error("reentry with lease " + leaseText(key) + " into a hold of lease " + leaseText(h.leaseKey)
                    + ": a RedisLockRegistry has one expireAfter (not called)", false);
        }
        Lock l = h != null ? h.lock : registries.get(key).obtain(name);
        lastLeaseKey.set(key);
        boolean got;
        if (wait < 0 && req.path("interruptible").asBoolean(false)) {
            l.lockInterruptibly();
            got = true;
        } else if (wait < 0) {
            l.lock();
            got = true;
        } else {
            got = l.tryLock(wait, TimeUnit.MILLISECONDS);
        }
        if (!got) {
            return Replies.fail();
        }
        if (h == null) {
            h = new Held(key, l);
            held.get().put(name, h);
        }
        h.holds++;
        return Replies.ok();
    }

    /** Releases one hold of name: true when released, false when the library said this owner held none. */
    boolean release(String name) {
        Held h = held.get().get(name);
        Lock l = h != null ? h.lock : registries.get(lastLeaseKey.get()).obtain(name);
        RedisLockRegistry r = h != null ? registries.get(h.leaseKey) : null;
        boolean unlinkFirst = r != null && UnlinkFallback.unlinkFirst(r);
        try {
            l.unlock();
        } catch (IllegalStateException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("You do not own lock")) {
                return false;
            }
            forget(name, h);
            throw e;
        } catch (ConcurrentModificationException e) {
            // The final unlock found the key gone or another's: the local
            // hold is released, no hold of the lock was. Unless the UNLINK
            // script failed first (UnlinkFallback): it may have released it.
            forget(name, h);
            if (unlinkFirst && !UnlinkFallback.unlinkFirst(r)) {
                throw new IllegalStateException("unknown: the library's UNLINK script failed (it may have run and released"
                        + " the hold) and its DEL script then found the key gone or another's", e);
            }
            return false;
        } catch (RuntimeException e) {
            forget(name, h); // the library released its local hold
            throw e;
        }
        forget(name, h);
        return true;
    }

    private ObjectNode unlock(String name) {
        return release(name) ? Replies.ok() : Replies.fail();
    }

    private void forget(String name, Held h) {
        if (h != null && --h.holds <= 0) {
            held.get().remove(name);
        }
    }

    /** The lock object of a fresh acquire of name with leaseKey (for the cycle request). */
    Lock obtain(String name, long leaseKey) {
        lastLeaseKey.set(leaseKey);
        return registries.get(leaseKey).obtain(name);
    }

    static String name(JsonNode req) {
        String name = req.path("name").asText("");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("request without lock name");
        }
        return name;
    }

    private static String leaseText(long key) {
        return key == Registries.WATCHDOG ? "watchdog" : key + " ms";
    }
}
