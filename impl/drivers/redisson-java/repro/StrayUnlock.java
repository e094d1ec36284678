import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's fair lock, library alone: an unlock by a thread that holds
 * nothing, on a lock nobody holds, returns normally, where RLock's contract
 * (and Redisson's own non-fair lock) throws IllegalMonitorStateException.
 * RedissonFairLock's unlock script answers 1 ("released") whenever the
 * lock's key does not exist, before it looks at the caller. Two cases per
 * lock kind: a second unlock after a lock and an unlock (the hold is gone),
 * and an unlock by a client that never locked. Prints one RESULT line per
 * kind: "throws" (the contract) or "returns" (the unlock claimed a release).
 *
 * <pre>java -cp 'target/lib/*' StrayUnlock.java PORT</pre>
 */
public final class StrayUnlock {
    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: StrayUnlock PORT");
            System.exit(2);
        }
        RedissonClient a = client(args[0]), b = client(args[0]);
        try {
            report("fair", a.getFairLock("stray-fair"), b.getFairLock("stray-fair"));
            report("non-fair", a.getLock("stray-plain"), b.getLock("stray-plain"));
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

    /** Locks and unlocks with a, then unlocks again with a and with b. */
    private static void report(String kind, RLock a, RLock b) {
        a.lock();
        a.unlock();
        String again = unlock(a), other = unlock(b);
        boolean contract = again.equals("throws") && other.equals("throws");
        System.out.printf("RESULT %s %s (second unlock by the last holder: %s; unlock by a client that never locked: %s)%n",
                kind, contract ? "throws" : "returns", again, other);
    }

    private static String unlock(RLock l) {
        try {
            l.unlock();
            return "returns";
        } catch (IllegalMonitorStateException e) {
            return "throws";
        }
    }
}
