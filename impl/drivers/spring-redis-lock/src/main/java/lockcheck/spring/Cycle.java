package lockcheck.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * The cycle request: the driver runs tryLock/unlock on one lock by itself for
 * duration_ms, so that a benchmark measures the library and not the pipe.
 * Each tryLock waits at most until the end of the cycle, so one still
 * waiting then gives up cleanly (false). Times are System.nanoTime, which on
 * Linux is CLOCK_MONOTONIC, the clock lockcheck reads too.
 *
 * <p>Reply: ok with "count" (grants within duration_ms), "grants" (with
 * "log": each grant's [requested, granted, released] in nanoseconds) and
 * "open" (when the last lock gave up at the end: when it was requested). A
 * failed call ends the cycle with error: the lock may be held (unknown).
 * duration_ms must leave two command timeouts before timeout_ms; PUB_SUB's
 * tryLock may overstay its wait (see impl/drivers/README.md), which the
 * deadline then ends with error.
 */
final class Cycle {
    private Cycle() {
    }

    static ObjectNode run(Locks locks, Options opts, JsonNode req, long deadline) throws InterruptedException {
        long duration = req.path("duration_ms").asLong(0);
        long margin = TimeUnit.MILLISECONDS.toNanos(2L * opts.commandTimeoutMs + 100);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(duration);
        if (duration <= 0 || until > deadline - margin) {
            return Outcome.error("cycle: duration_ms " + duration + " leaves less than two command timeouts before timeout_ms", false);
        }
        Lock l = locks.obtain(Locks.name(req), Registries.leaseKey(req));
        boolean log = req.path("log").asBoolean(false);
        ObjectNode rep = Outcome.ok();
        ArrayNode grants = log ? rep.putArray("grants") : null;
        long count = 0;
        for (long now = System.nanoTime(); now < until; now = System.nanoTime()) {
            long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - now));
            if (!l.tryLock(wait, TimeUnit.MILLISECONDS)) {
                rep.put("open", now);
                break;
            }
            long granted = System.nanoTime();
            long released = System.nanoTime();
            l.unlock();
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
}
