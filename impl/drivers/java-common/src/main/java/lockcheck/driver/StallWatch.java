package lockcheck.driver;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * The driver process's own stalls, as jHiccup measures a JVM's: a daemon
 * thread asks to wake every {@link #TICK_NS} and records each wake-up later
 * than {@link #THRESHOLD_NS} past that as a stall [start, end] in
 * System.nanoTime (CLOCK_MONOTONIC on Linux, the clock lockcheck reads).
 * A starved CPU, a GC pause or a SIGSTOP stalls every thread of the
 * process, the library's renewals and replies among them; lockcheck records
 * each stall as a hiccup fault window of the process's owners, so that a
 * reply it held up is not taken for the lock's (impl/driver/doc.go,
 * "stalls"). Every reply carries the stalls seen since the previous reply
 * ({@link #drainInto}). The thread runs until the process exits.
 */
final class StallWatch {
    static final long TICK_NS = 5_000_000;
    static final long THRESHOLD_NS = 40_000_000;
    /** At most this many stalls wait for a reply; older ones are dropped. */
    private static final int MAX_PENDING = 64;

    private final List<long[]> pending = new ArrayList<>();

    static StallWatch start() {
        StallWatch w = new StallWatch();
        Thread t = new Thread(w::run, "lockcheck-stall-watch");
        t.setDaemon(true);
        t.start();
        return w;
    }

    private void run() {
        long last = System.nanoTime();
        while (true) {
            LockSupport.parkNanos(TICK_NS);
            long now = System.nanoTime();
            if (now - last - TICK_NS > THRESHOLD_NS) {
                add(last + TICK_NS, now);
            }
            last = now;
        }
    }

    private synchronized void add(long start, long end) {
        if (pending.size() == MAX_PENDING) {
            pending.remove(0);
        }
        pending.add(new long[] {start, end});
    }

    /** Moves the stalls seen so far into rep's "stalls", if any. */
    synchronized void drainInto(ObjectNode rep) {
        if (pending.isEmpty()) {
            return;
        }
        ArrayNode all = rep.putArray("stalls");
        for (long[] s : pending) {
            all.addArray().add(s[0]).add(s[1]);
        }
        pending.clear();
    }
}
