package lockcheck.redisson;

import org.redisson.Redisson;
import org.redisson.RedissonFencedLock;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RFuture;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.SentinelServersConfig;

import java.util.concurrent.TimeUnit;

/**
 * The parts of Redisson's API that differ between its releases, for the
 * releases this source set is built against (src/compat/current: 3.27.0 and
 * later, Redisson 4 included; build.sh picks the set by version). The rest of
 * the driver calls Redisson only through what every supported release has.
 */
final class Compat {
    private Compat() {
    }

    /** Why kind cannot be served by this Redisson, or null when it can. */
    static String unsupported(Options.Kind kind) {
        return null;
    }

    /** Settings of the config this release needs changed: none. */
    static void defaults(Config c) {
    }

    static RLock fair(RedissonClient r, String name) {
        return new QueuedFairLock(((Redisson) r).getCommandExecutor(), name);
    }

    /**
     * When the current thread's request on the fair lock l was queued
     * (System.nanoTime), 0 if it was not; forgotten once asked, so a request
     * that asks at its start drops what an earlier one left (an interrupted
     * acquire never asks).
     */
    static long enqueued(RLock l) {
        return l instanceof QueuedFairLock q ? q.takeEnqueued(Thread.currentThread().getId()) : 0;
    }

    static RLock fenced(RedissonClient r, String name) {
        return r.getFencedLock(name);
    }

    static RLock spin(RedissonClient r, String name) {
        return r.getSpinLock(name);
    }

    /** A multilock or RedLock over members. */
    static RLock multiLock(RLock[] members, boolean redlock) {
        return redlock ? new RedissonRedLock(members) : new RedissonMultiLock(members);
    }

    static void addPermits(RSemaphore s, int n, long deadline) throws Exception {
        Locks.await(s.addPermitsAsync(n), deadline);
    }

    static int availablePermits(RSemaphore s, long deadline) throws Exception {
        return Locks.await(s.availablePermitsAsync(), deadline);
    }

    /** RCountDownLatch.await(ms), async. */
    static boolean awaitLatch(RCountDownLatch l, long ms, long deadline) throws Exception {
        return Boolean.TRUE.equals(Locks.await(l.awaitAsync(ms, TimeUnit.MILLISECONDS), deadline));
    }

    /** The fenced lock's lockAndGetToken (the current thread is the owner). */
    static RFuture<Long> lockAndGetToken(RLock l, long lease) {
        RedissonFencedLock f = (RedissonFencedLock) l;
        return lease > 0 ? f.lockAndGetTokenAsync(lease, TimeUnit.MILLISECONDS) : f.lockAndGetTokenAsync();
    }

    static RFuture<Long> tryLockAndGetToken(RLock l, long wait, long lease, long owner) {
        return ((RedissonFencedLock) l).tryLockAndGetTokenAsync(wait, lease, TimeUnit.MILLISECONDS, owner);
    }

    static RFuture<Long> token(RLock l) {
        return ((RedissonFencedLock) l).getTokenAsync();
    }

    /** Sentinel settings: the sentinels' password ("": none), no check of their list. */
    static void sentinel(SentinelServersConfig s, String password) {
        s.setCheckSentinelsList(false);
        if (!password.isEmpty()) {
            s.setSentinelPassword(password);
        }
    }

    /** The client's id, for logs and scratch names. */
    static String clientId(RedissonClient r) {
        return r.getId();
    }

    /** Sets the connection settings every topology's config shares. */
    static void connection(Object servers, Connection c) {
        BaseConfig<?> base = (BaseConfig<?>) servers;
        if (!c.user().isEmpty()) {
            base.setUsername(c.user());
        }
        if (!c.password().isEmpty()) {
            base.setPassword(c.password());
        }
        base.setClientName(c.clientName())
                .setConnectTimeout(c.connectTimeoutMs())
                .setTimeout(c.commandTimeoutMs())
                .setSubscriptionTimeout(c.commandTimeoutMs())
                .setRetryAttempts(0)
                .setRetryInterval(c.commandTimeoutMs());
    }
}
