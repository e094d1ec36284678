import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * RedisLockRegistry with a renewal scheduler, the library alone: an unlock()
 * whose key removal Redis refuses (the connection's user may not run UNLINK
 * nor DEL for a moment: ACL SETUSER default -unlink -del) throws, and the
 * hold's renewal task is not stopped (RedisLock.removeLockKey calls
 * stopRenew only after a removal that succeeded): the renewal goes on
 * renewing the key its holder tried to release, for as long as the registry
 * lives, so no other process gets the lock though its holder gave it up.
 *
 * Usage: java -cp LIB/*:. FailedUnlockRenewed PORT ROUNDS MODE(spin|pubsub)
 * Each round, on a fresh key, registry A (expireAfter 1500 ms, a renewal
 * every 500 ms) locks; the unlock is made 100 ms after the lock (between
 * renewals, which come at 500 ms), with UNLINK and DEL denied
 * around it only, then allowed again. 4.5 s later (3 x expireAfter) the key
 * is read, and registry B tries the lock. Control: the same without the
 * denial. Expected: no key left after a failed unlock beyond expireAfter.
 */
public class FailedUnlockRenewed {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        boolean pubsub = args.length > 2 && args[2].equals("pubsub");
        LettuceConnectionFactory f = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        f.afterPropertiesSet();
        try {
            f.getClass().getMethod("start").invoke(f); // Spring Data 3.2 and later: a Lifecycle
        } catch (NoSuchMethodException e) {
            // started by afterPropertiesSet
        }
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        RedisLockRegistry a = new RedisLockRegistry(f, "failed", 1500);
        RedisLockRegistry b = new RedisLockRegistry(f, "failed", 1500);
        a.setRenewalTaskScheduler(scheduler);
        if (pubsub) {
            setPubSub(a);
            setPubSub(b);
        }
        try (RedisConnection c = f.getConnection()) {
            for (boolean deny : new boolean[] {false, true}) {
                int threw = 0, kept = 0, refused = 0;
                for (int round = 0; round < rounds; round++) {
                    String name = (deny ? "deny-" : "control-") + round;
                    Lock l = a.obtain(name);
                    l.lock();
                    Thread.sleep(100);
                    if (deny) {
                        acl(c, "-unlink", "-del");
                    }
                    try {
                        l.unlock();
                    } catch (RuntimeException e) {
                        threw++;
                    } finally {
                        if (deny) {
                            acl(c, "+unlink", "+del");
                        }
                    }
                    Thread.sleep(4500);
                    if (c.stringCommands().get(("failed:" + name).getBytes(StandardCharsets.UTF_8)) != null) {
                        kept++;
                    }
                    Lock other = b.obtain(name);
                    if (!other.tryLock(0, TimeUnit.MILLISECONDS)) {
                        refused++;
                    } else {
                        other.unlock();
                    }
                }
                System.out.printf("%s, %s: %d rounds: %d unlocks threw; 4.5 s later %d keys still set, %d locks refused to another registry%n",
                        pubsub ? "pubsub" : "spin", deny ? "UNLINK and DEL denied during the unlock" : "control", rounds, threw, kept, refused);
            }
        }
        scheduler.shutdown();
        f.destroy();
        System.exit(0);
    }

    static void acl(RedisConnection c, String... rules) {
        byte[][] args = new byte[rules.length + 2][];
        args[0] = "SETUSER".getBytes(StandardCharsets.UTF_8);
        args[1] = "default".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < rules.length; i++) {
            args[i + 2] = rules[i].getBytes(StandardCharsets.UTF_8);
        }
        c.execute("ACL", args);
    }

    static void setPubSub(RedisLockRegistry r) throws Exception {
        Class<?> type = Class.forName("org.springframework.integration.redis.util.RedisLockRegistry$RedisLockType");
        Object pub = type.getField("PUB_SUB_LOCK").get(null);
        r.getClass().getMethod("setRedisLockType", type).invoke(r, pub);
    }
}
