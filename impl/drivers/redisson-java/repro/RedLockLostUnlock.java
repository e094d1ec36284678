import org.redisson.Redisson;
import org.redisson.RedissonMultiLock;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

import java.util.concurrent.TimeUnit;

/**
 * Redisson's RedLock, library alone: an unlock after the hold was lost
 * returns normally. Client a takes a RedissonRedLock over three RLocks with
 * a 1 s lease; the lease runs out; client b takes the same RedLock; then
 * a's unlock() returns normally, as if it had released a hold, though b
 * holds every member. RedissonRedLock.unlock() calls unlockInner, which
 * ignores each member's IllegalMonitorStateException; the MultiLock's
 * unlock() (the control, same run, same steps) throws. Prints one RESULT
 * line per kind: "throws" (the caller learns it held nothing) or "returns".
 *
 * <pre>java -cp 'target/lib/*' RedLockLostUnlock.java PORT</pre>
 */
public final class RedLockLostUnlock {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: RedLockLostUnlock PORT");
            System.exit(2);
        }
        RedissonClient a = client(args[0]), b = client(args[0]);
        try {
            report("redlock", true, a, b);
            report("multilock", false, a, b);
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

    private static RLock of(RedissonClient r, String name, boolean redlock) {
        RLock[] m = {r.getLock(name + ":1"), r.getLock(name + ":2"), r.getLock(name + ":3")};
        return redlock ? new RedissonRedLock(m) : new RedissonMultiLock(m);
    }

    private static void report(String kind, boolean redlock, RedissonClient a, RedissonClient b) throws Exception {
        String name = "lost-" + kind;
        RLock la = of(a, name, redlock), lb = of(b, name, redlock);
        if (!la.tryLock(1, 1, TimeUnit.SECONDS)) {
            throw new IllegalStateException(kind + ": a's first tryLock refused");
        }
        Thread.sleep(1500); // a's lease (1 s) runs out
        if (!lb.tryLock(1, 10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(kind + ": b's tryLock refused after a's lease ran out");
        }
        String got;
        try {
            la.unlock();
            got = "returns";
        } catch (IllegalMonitorStateException e) {
            got = "throws";
        }
        boolean bHolds = b.getLock(name + ":1").isLocked() && b.getLock(name + ":2").isLocked() && b.getLock(name + ":3").isLocked();
        System.out.printf("RESULT %s %s (a's unlock after its lease ran out while b holds every member: %s)%n",
                kind, got, bHolds ? "b still holds them" : "b's members changed");
        lb.unlock();
    }
}
