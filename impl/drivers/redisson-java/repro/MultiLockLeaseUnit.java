import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.concurrent.TimeUnit;

/**
 * RedissonMultiLock, library alone: lock(leaseTime, unit) with a unit other
 * than MILLISECONDS gives the members a lease 1000 times too long when its
 * first round fails. lockInterruptibly(leaseTime, unit) converts leaseTime
 * to milliseconds inside its retry loop but keeps calling unit.toMillis on
 * it (the fix of #5484, 3.25.1): the second round converts 2000 "seconds"
 * again, and the members are held for 2,000,000 ms instead of 2 s.
 *
 * <p>Client a holds member m1 (a plain RLock) for 3 s; client b locks the
 * multilock over (NAME, NAME:m1, NAME:m2) with lock(2, SECONDS), whose first
 * round (a random wait of 1–2 s) fails on m1; once a releases m1, b's second
 * round takes the members. The control does the same with
 * lock(2000, MILLISECONDS). Prints the members' remaining TTL and one
 * RESULT line per unit: "ok" (at most the 2 s lease) or "broken".
 *
 * <pre>java -cp 'target/lib/*' MultiLockLeaseUnit.java PORT</pre>
 */
public final class MultiLockLeaseUnit {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: MultiLockLeaseUnit PORT");
            System.exit(2);
        }
        RedissonClient a = client(args[0]), b = client(args[0]);
        try {
            report("SECONDS", a, b, "mlu-s", 2, TimeUnit.SECONDS);
            report("MILLISECONDS", a, b, "mlu-ms", 2000, TimeUnit.MILLISECONDS);
        } finally {
            a.shutdown();
            b.shutdown();
        }
    }

    private static RedissonClient client(String port) {
        Config cfg = new Config();
        cfg.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        return Redisson.create(cfg);
    }

    private static void report(String unitName, RedissonClient a, RedissonClient b, String name, long lease, TimeUnit unit)
            throws Exception {
        String[] names = {name, name + ":m1", name + ":m2"};
        RLock blocker = a.getLock(names[1]);
        blocker.lock(3, TimeUnit.SECONDS); // released by its lease after 3 s
        RLock[] members = new RLock[names.length];
        for (int i = 0; i < names.length; i++) {
            members[i] = b.getLock(names[i]);
        }
        RedissonMultiLock multi = new RedissonMultiLock(members);
        long start = System.nanoTime();
        multi.lock(lease, unit);
        long took = (System.nanoTime() - start) / 1_000_000;
        long max = 0;
        StringBuilder ttls = new StringBuilder();
        for (RLock m : members) {
            long ttl = m.remainTimeToLive();
            max = Math.max(max, ttl);
            ttls.append(' ').append(m.getName()).append('=').append(ttl).append("ms");
        }
        System.out.printf("lock(%d, %s) granted after %d ms; members' TTL:%s%n", lease, unitName, took, ttls);
        System.out.printf("RESULT %s %s (longest member TTL %d ms for a 2000 ms lease)%n",
                unitName, max <= 2000 ? "ok" : "broken", max);
        multi.unlock();
    }
}
