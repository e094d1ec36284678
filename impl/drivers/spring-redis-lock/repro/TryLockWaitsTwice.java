import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * RedisLockRegistry (spring-integration-redis 6.5.5) over Lettuce, the
 * library alone: RedisLock.tryLock(time, unit) waits up to time for the
 * registry's local ReentrantLock, then up to time again for the Redis key
 * (tryRedisLock gets the whole wait, not what is left of it), so a tryLock
 * can answer nearly twice its wait after it was called.
 *
 * <p>Registry C (another process, as it were) holds lock x for 3 s. In
 * registry R, thread A calls tryLock(800 ms) and so holds R's local lock
 * while it spins on the Redis key; thread B calls tryLock(1000 ms) 50 ms
 * later. B waits for the local lock until A gives up, then spins on the key
 * for 1000 ms more. The control is B alone.
 *
 * <p>Usage: java -cp ../target/lib/*:. TryLockWaitsTwice PORT ROUNDS
 */
public class TryLockWaitsTwice {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        LettuceConnectionFactory fc = factory(port);
        LettuceConnectionFactory fr = factory(port);
        RedisLockRegistry c = new RedisLockRegistry(fc, "repro", 10_000);
        RedisLockRegistry r = new RedisLockRegistry(fr, "repro", 10_000);
        for (int i = 0; i < rounds; i++) {
            System.out.printf("round %d: B's tryLock(1000 ms) answered %s; alone, %s%n",
                    i, round(c, r, "x" + i, true), round(c, r, "y" + i, false));
        }
        fc.destroy();
        fr.destroy();
    }

    /** One round on a fresh key: C holds it 3 s; A (if withA) and B ask in R. Returns B's answer and its time. */
    private static String round(RedisLockRegistry c, RedisLockRegistry r, String key, boolean withA) throws Exception {
        Lock held = c.obtain(key);
        held.lock();
        CompletableFuture<Void> a = CompletableFuture.completedFuture(null);
        if (withA) {
            a = CompletableFuture.runAsync(() -> tryLock(r.obtain(key), 800));
        }
        Thread.sleep(50);
        long t0 = System.nanoTime();
        boolean got = tryLock(r.obtain(key), 1000);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        a.get();
        CompletableFuture.runAsync(() -> sleep(3000 - 50 - took)).get();
        held.unlock();
        return (got ? "true" : "false") + " after " + took + " ms";
    }

    private static boolean tryLock(Lock l, long ms) {
        try {
            boolean got = l.tryLock(ms, TimeUnit.MILLISECONDS);
            if (got) {
                l.unlock();
            }
            return got;
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(Math.max(0, ms));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static LettuceConnectionFactory factory(int port) {
        LettuceConnectionFactory f = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        f.afterPropertiesSet();
        f.start();
        return f;
    }
}
