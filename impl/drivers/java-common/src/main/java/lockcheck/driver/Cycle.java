package lockcheck.driver;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.concurrent.TimeUnit;

/**
 * The cycle request: the driver runs tryLock/unlock on one lock by itself for
 * duration_ms, so that a benchmark measures the library and not the pipe.
 * Each tryLock waits at most until the end of the cycle, so one still waiting
 * then gives up cleanly (false). Times are System.nanoTime, which on Linux is
 * CLOCK_MONOTONIC, the clock lockcheck reads too.
 *
 * <p>Reply: ok with "count" (grants within duration_ms), "grants" (with
 * "log": each grant's [requested, granted, released] in nanoseconds) and
 * "open" (when the last lock gave up at the end: when it was requested). A
 * failed call ends the cycle with its exception, which the driver answers
 * with error: the lock may be held (unknown). duration_ms must leave two
 * command timeouts before the deadline.
 */
public final class Cycle {
    /** The lock a cycle takes and releases, as the library calls it. */
    public interface Lock {
        /**
         * Acquires, waiting at most waitMs: true when granted, false when the
         * wait ran out. until (System.nanoTime) is the end of the cycle.
         */
        boolean tryLock(long waitMs, long until) throws Exception;

        /** Releases the grant of the last tryLock. */
        void unlock() throws Exception;
    }

    /** Makes the cycle's lock from the request, once duration_ms is checked. */
    public interface Opener {
        Lock open() throws Exception;
    }

    private Cycle() {
    }

    /** The cycle's Lock for a java.util.concurrent lock (tryLock with the wait, unlock). */
    public static Lock of(java.util.concurrent.locks.Lock l) {
        return new Lock() {
            @Override
            public boolean tryLock(long waitMs, long until) throws InterruptedException {
                return l.tryLock(waitMs, TimeUnit.MILLISECONDS);
            }

            @Override
            public void unlock() {
                l.unlock();
            }
        };
    }

    /**
     * Runs the cycle req asks for, to end at least two command timeouts
     * (commandTimeoutMs) and 100 ms before deadline (System.nanoTime), on the
     * lock opener makes.
     */
    public static ObjectNode run(JsonNode req, long deadline, int commandTimeoutMs, Opener opener) throws Exception {
        long duration = req.path("duration_ms").asLong(0);
        long margin = TimeUnit.MILLISECONDS.toNanos(2L * commandTimeoutMs + 100);
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(duration);
        if (duration <= 0 || until > deadline - margin) {
            return Replies.error("cycle: duration_ms " + duration + " leaves less than two command timeouts before timeout_ms", false);
        }
        Lock l = opener.open();
        boolean log = req.path("log").asBoolean(false);
        ObjectNode rep = Replies.ok();
        ArrayNode grants = log ? rep.putArray("grants") : null;
        long count = 0;
        for (long now = System.nanoTime(); now < until; now = System.nanoTime()) {
            long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - now));
            if (!l.tryLock(wait, until)) {
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
