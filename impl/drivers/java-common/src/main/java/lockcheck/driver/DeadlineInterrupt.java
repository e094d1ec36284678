package lockcheck.driver;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Interrupts the thread that made it at a deadline (System.nanoTime) unless
 * closed first, so that a library call that only an interrupt ends (Java's
 * lockInterruptibly) gives up by the request's deadline, as the caller's own
 * interrupt would make it. Closing it cancels the interrupt; one that fired
 * is cleared from the thread, so it never reaches a later call. Not shared
 * between threads.
 */
public final class DeadlineInterrupt implements AutoCloseable {
    private static final ScheduledExecutorService TIMER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "lockcheck-deadline");
        t.setDaemon(true);
        return t;
    });

    private final Thread thread = Thread.currentThread();
    private final ScheduledFuture<?> task;
    private boolean closed;
    private boolean fired;

    public DeadlineInterrupt(long deadline) {
        task = TIMER.schedule(this::fire, Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
    }

    private synchronized void fire() {
        if (!closed) {
            fired = true;
            thread.interrupt();
        }
    }

    /** Whether the deadline interrupted the thread (rather than someone else). */
    public synchronized boolean fired() {
        return fired;
    }

    @Override
    public synchronized void close() {
        closed = true;
        task.cancel(false);
        if (fired) {
            Thread.interrupted();
        }
    }
}
