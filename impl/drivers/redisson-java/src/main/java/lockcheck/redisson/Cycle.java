package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.redisson.client.RedisTimeoutException;

import java.util.concurrent.TimeUnit;

/**
 * The cycle request: the driver runs lock/unlock on one lock by itself for
 * duration_ms, so that a benchmark measures Redisson and not the pipe. Each
 * lock waits at most until the end of the cycle (Redisson's tryLock with the
 * time left), so a lock still waiting then gives up cleanly. Times are
 * System.nanoTime, which on Linux is CLOCK_MONOTONIC, the clock lockcheck
 * reads too.
 *
 * <p>Reply: ok with "count" (grants within duration_ms), "grants" (with
 * "log": each grant's [requested, granted, released] in nanoseconds) and
 * "open" (when the last lock gave up at the end: when it was requested). A
 * failed call, or one still pending at timeout_ms, ends the cycle with error:
 * the lock may be held (unknown). duration_ms must leave two command
 * timeouts before timeout_ms.
 */
final class Cycle {
    private Cycle() {
    }

    static ObjectNode run(Locks locks, Options opts, long owner, JsonNode req, long deadline) throws Exception {
        long duration = req.path("duration_ms").asLong(0);
        long margin = TimeUnit.MILLISECONDS.toNanos(2L * opts.commandTimeoutMs + 100);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(duration);
        if (duration <= 0 || until > deadline - margin) {
            return Outcome.error("cycle: duration_ms " + duration + " leaves less than two command timeouts before timeout_ms", false);
        }
        long lease = Locks.leaseOf(req);
        boolean log = req.path("log").asBoolean(false);
        ObjectNode rep = Outcome.ok();
        ArrayNode grants = log ? rep.putArray("grants") : null;
        long count = 0;
        for (long now = System.nanoTime(); now < until; now = System.nanoTime()) {
            long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - now));
            boolean got;
            try {
                got = acquire(locks, opts, owner, req, wait, lease, deadline);
            } catch (RedisTimeoutException e) {
                // Redisson bounds a waiter's subscription by the wait left:
                // near the end it gives up with this instead of false.
                if (!subscriptionTimeout(e) || until - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(opts.commandTimeoutMs)) {
                    throw e;
                }
                got = false;
            }
            if (!got) {
                rep.put("open", now);
                break;
            }
            long granted = System.nanoTime();
            long released = System.nanoTime();
            Locks.await(locks.lock(req).unlockAsync(owner), deadline);
            if (granted <= until) {
                count++;
            }
            if (grants != null) {
                grants.addArray().add(now).add(granted).add(released);
            }
        }
        rep.put("count", count);
        rep.put("clock", "monotonic");
        return rep;
    }

    private static boolean subscriptionTimeout(RedisTimeoutException e) {
        return e.getMessage() != null && e.getMessage().startsWith("Unable to acquire subscription lock");
    }

    private static boolean acquire(Locks locks, Options opts, long owner, JsonNode req, long wait, long lease, long deadline)
            throws Exception {
        if (opts.kind == Options.Kind.FENCED) {
            var f = (org.redisson.RedissonFencedLock) locks.lock(req);
            return Locks.await(f.tryLockAndGetTokenAsync(wait, lease, TimeUnit.MILLISECONDS, owner), deadline) != null;
        }
        return Boolean.TRUE.equals(Locks.await(locks.lock(req).tryLockAsync(wait, lease, TimeUnit.MILLISECONDS, owner), deadline));
    }
}
