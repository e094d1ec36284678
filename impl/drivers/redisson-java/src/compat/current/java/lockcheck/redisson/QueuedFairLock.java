package lockcheck.redisson;

import org.redisson.RedissonFairLock;
import org.redisson.RedissonLockEntry;
import org.redisson.command.CommandAsyncExecutor;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Redisson's fair lock, telling when a request joined the queue: Redisson
 * subscribes to the lock's channel only after an attempt whose script found
 * the lock taken and queued the thread, so a request's first subscribe marks
 * (a little late, never early) the moment it was queued. The mark is kept per
 * thread id (Redisson's owner of a request) until the request takes it, so a
 * lock object that several requests and owners share (shared_objects) tells
 * each request its own. Everything else is Redisson's.
 */
final class QueuedFairLock extends RedissonFairLock {
    private final Map<Long, Long> enqueued = new ConcurrentHashMap<>();

    QueuedFairLock(CommandAsyncExecutor executor, String name) {
        super(executor, name);
    }

    @Override
    protected CompletableFuture<RedissonLockEntry> subscribe(long threadId) {
        enqueued.putIfAbsent(threadId, System.nanoTime());
        return super.subscribe(threadId);
    }

    /**
     * System.nanoTime (CLOCK_MONOTONIC) of the queueing of thread threadId's
     * request since the last take, 0 if it was never queued; forgotten once
     * taken.
     */
    long takeEnqueued(long threadId) {
        Long t = enqueued.remove(threadId);
        return t == null ? 0 : t;
    }
}
