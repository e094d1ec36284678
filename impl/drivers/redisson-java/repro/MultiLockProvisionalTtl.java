import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * RedissonMultiLock, library alone: tryLock(waitTime, leaseTime, unit) locks
 * each member with a provisional lease of 2 × waitTime and shortens it to
 * leaseTime only once every member is held (one PEXPIRE each). A waiter
 * that reads a member's TTL in between sleeps for that provisional TTL: the
 * lease then runs out and publishes nothing, so the waiter waits on a free
 * lock for seconds.
 *
 * <p>Client x holds member NAME:m1 (a plain RLock) for 500 ms. Client h
 * calls tryLock(2000 ms, 100 ms) on the multilock (NAME, NAME:m1, NAME:m2):
 * it takes NAME with a 4,000 ms lease and waits for m1. At 200 ms client w
 * calls lock() on the same multilock and reads NAME's TTL. h is granted once
 * x lets m1 go, and never unlocks: its 100 ms lease frees the members. The
 * control is the same with no x (h is granted at once, before w asks).
 * Prints when the lock became free (h's grant + its lease) and when w was
 * granted, and one RESULT line: "broken" when w waited on the free lock for
 * more than a second, "ok" otherwise.
 *
 * <pre>java -cp 'target/lib/*' MultiLockProvisionalTtl.java PORT</pre>
 */
public final class MultiLockProvisionalTtl {
    private static final long LEASE_MS = 100;

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: MultiLockProvisionalTtl PORT");
            System.exit(2);
        }
        RedissonClient x = client(args[0]), h = client(args[0]), w = client(args[0]);
        try {
            report("contended", x, h, w, "mlp-c-" + System.nanoTime(), true);
            report("control", x, h, w, "mlp-u-" + System.nanoTime(), false);
        } finally {
            x.shutdown();
            h.shutdown();
            w.shutdown();
        }
    }

    private static RedissonClient client(String port) {
        Config cfg = new Config();
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        return Redisson.create(cfg);
    }

    private static RedissonMultiLock multi(RedissonClient c, String name) {
        return new RedissonMultiLock(c.getLock(name), c.getLock(name + ":m1"), c.getLock(name + ":m2"));
    }

    private static void report(String what, RedissonClient x, RedissonClient h, RedissonClient w, String name,
            boolean contended) throws Exception {
        long t0 = System.nanoTime();
        CompletableFuture<Void> xDone = CompletableFuture.completedFuture(null);
        if (contended) {
            RLock m1 = x.getLock(name + ":m1");
            m1.lock();
            xDone = CompletableFuture.runAsync(() -> {
                sleep(500);
                m1.forceUnlock();
            });
        }
        CompletableFuture<Long> hGranted = CompletableFuture.supplyAsync(() -> {
            try {
                return multi(h, name).tryLock(2000, LEASE_MS, TimeUnit.MILLISECONDS) ? ms(t0) : -1L;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        sleep(200);
        RedissonMultiLock wl = multi(w, name);
        wl.lock();
        long wGranted = ms(t0);
        wl.unlock();
        xDone.get();
        long free = hGranted.get() + LEASE_MS;
        long waited = wGranted - Math.max(free, 200);
        System.out.printf("%s: h granted at %d ms (free from %d ms), w asked at 200 ms and was granted at %d ms: %d ms on a free lock%n",
                what, hGranted.get(), free, wGranted, Math.max(0, waited));
        System.out.println("RESULT " + what + " " + (waited > 1000 ? "broken" : "ok"));
    }

    private static long ms(long t0) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
