package lockcheck.redisson;

import org.redisson.RedissonFairLock;
import org.redisson.RedissonLockEntry;
import org.redisson.command.CommandAsyncExecutor;

import java.util.concurrent.CompletableFuture;

/**
 * Redisson's fair lock, telling when a request joined the queue: Redisson
 * subscribes to the lock's channel only after an attempt whose script found
 * the lock taken and queued the thread, so the first subscribe marks (a little
 * late, never early) the moment the request was queued. Everything else is
 * Redisson's.
 */
final class QueuedFairLock extends RedissonFairLock {
    private long enqueued;

    QueuedFairLock(CommandAsyncExecutor executor, String name) {
        super(executor, name);
    }

    @Override
    protected CompletableFuture<RedissonLockEntry> subscribe(long threadId) {
        if (enqueued == 0) {
            enqueued = System.nanoTime();
        }
        return super.subscribe(threadId);
    }

    /** System.nanoTime (CLOCK_MONOTONIC) of the queueing, 0 if never queued. */
    long enqueued() {
        return enqueued;
    }
}
