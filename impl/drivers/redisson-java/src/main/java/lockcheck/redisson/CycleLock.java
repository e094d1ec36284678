package lockcheck.redisson;

import com.fasterxml.jackson.databind.JsonNode;

import lockcheck.driver.Cycle;

import org.redisson.client.RedisTimeoutException;

import java.util.concurrent.TimeUnit;

/**
 * The lock of a cycle request ({@link Cycle}): Redisson's tryLock with the
 * time left in the cycle (the fenced lock's tryLockAndGetToken), and unlock,
 * each on a new lock object and bounded by the request's deadline. A call
 * still pending then ends the cycle with error: the lock may be held.
 */
final class CycleLock implements Cycle.Lock {
    private final Locks locks;
    private final Options opts;
    private final long owner;
    private final JsonNode req;
    private final long lease;
    private final long deadline;

    CycleLock(Locks locks, Options opts, long owner, JsonNode req, long deadline) {
        this.locks = locks;
        this.opts = opts;
        this.owner = owner;
        this.req = req;
        this.lease = Locks.leaseOf(req);
        this.deadline = deadline;
    }

    @Override
    public boolean tryLock(long wait, long until) throws Exception {
        try {
            return acquire(wait);
        } catch (RedisTimeoutException e) {
            // Redisson bounds a waiter's subscription by the wait left:
            // near the end it gives up with this instead of false.
            if (!subscriptionTimeout(e) || until - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(opts.commandTimeoutMs)) {
                throw e;
            }
            return false;
        }
    }

    @Override
    public void unlock() throws Exception {
        Locks.await(locks.lock(req).unlockAsync(owner), deadline);
    }

    private static boolean subscriptionTimeout(RedisTimeoutException e) {
        return e.getMessage() != null && e.getMessage().startsWith("Unable to acquire subscription lock");
    }

    private boolean acquire(long wait) throws Exception {
        if (opts.kind == Options.Kind.FENCED) {
            return Locks.await(Compat.tryLockAndGetToken(locks.lock(req), wait, lease, owner), deadline) != null;
        }
        return Boolean.TRUE.equals(Locks.await(locks.lock(req).tryLockAsync(wait, lease, TimeUnit.MILLISECONDS, owner), deadline));
    }
}
