import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * RedisLockRegistry, the library alone: an unlock() made by a thread whose
 * interrupt status is set (a task cancelled in its section unlocks in its
 * finally block), then, at once, a lock() of the same lock in the same
 * registry (the next task of a pool thread, whose status the pool cleared).
 * Where RedisLock hands an interrupted unlock's key removal to the
 * registry's executor and returns before it ran, the next lock() finds the
 * key still set to the registry's clientId and is granted (the obtain
 * script only PEXPIREs its own key), and the deferred removal, which checks
 * that same clientId, then deletes the new holder's key: another registry
 * (another process) is granted the lock while its holder holds it.
 *
 * Usage: java -cp LIB/*:. InterruptedUnlockRegrant PORT ROUNDS
 * Each round, on a fresh key, with registries A and B (expireAfter 10 s, no
 * renewal): the main thread locks with A, sets its own interrupt status,
 * unlocks (an exception is counted and the round ends), clears the status,
 * locks with A again, and 100 ms later B's tryLock() (no wait) is tried: true
 * is a double grant (A's thread still holds). Then both unlock.
 * Expected: 0 double grants. Prints the counts.
 */
public class InterruptedUnlockRegrant {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        LettuceConnectionFactory f = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        f.afterPropertiesSet();
        try {
            f.getClass().getMethod("start").invoke(f); // Spring Data 3.2 and later: a Lifecycle
        } catch (NoSuchMethodException e) {
            // 3.1 and earlier (Spring Integration 6.1.x): started by afterPropertiesSet
        }
        RedisLockRegistry a = new RedisLockRegistry(f, "regrant", 10_000);
        RedisLockRegistry b = new RedisLockRegistry(f, "regrant", 10_000);
        int unlockThrew = 0, doubleGrants = 0;
        String firstThrow = null;
        for (int round = 0; round < rounds; round++) {
            String name = "r-" + round;
            Lock la = a.obtain(name);
            la.lock();
            Thread.currentThread().interrupt();
            try {
                la.unlock();
            } catch (RuntimeException e) {
                unlockThrew++;
                if (firstThrow == null) {
                    firstThrow = e.toString();
                }
                Thread.interrupted();
                Thread.sleep(20); // whatever the failed unlock left runs out of the way
                a.expireUnusedOlderThan(0);
                continue;
            }
            Thread.interrupted();
            la.lock();
            Thread.sleep(100);
            Lock lb = b.obtain(name);
            if (lb.tryLock(0, TimeUnit.MILLISECONDS)) {
                doubleGrants++;
                lb.unlock();
            }
            try {
                la.unlock();
            } catch (RuntimeException e) {
                // its key was deleted under it: the double grant counted above
            }
        }
        System.out.printf("%d rounds: %d double grants (B granted while A's thread held, after A's interrupted unlock and relock), %d interrupted unlocks threw%s%n",
                rounds, doubleGrants, unlockThrew, firstThrow == null ? "" : " (first: " + firstThrow + ")");
        f.destroy();
        System.exit(0);
    }
}
