import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * RedisLockRegistry (spring-integration-redis 6.5.5, spin lock, the default)
 * with a renewal scheduler, the library alone: a Lock.lock() whose thread is
 * interrupted while its obtain script is in flight throws
 * CannotAcquireLockException (RedisSystemException "Redis command
 * interrupted" from Lettuce's await), but the script still runs on the
 * server, so the key is left set to the registry's clientId. lock() itself
 * schedules no renewal for it (tryRedisLock schedules one only after the
 * obtain answered true), so without earlier reentries the orphan expires
 * after expireAfter (1.5 s). After earlier reentrant acquires of the same
 * lock (lock(); lock(); unlock(); unlock()), the renewal tasks those reentries
 * leaked (see RenewalLeak.java) are still running, find the key holding
 * their clientId and renew it forever: the orphan never expires, while no
 * thread holds the lock.
 *
 * Usage: java -cp ../target/lib/*:. InterruptedLockRenewed PORT ROUNDS REENTRIES [SEED]
 * Each round, on a fresh key: a worker thread does lock(); lock(); unlock();
 * unlock() REENTRIES times; then a thread calls lock() and the main thread
 * interrupts it after a random delay (uniform 0..1500 us after the thread
 * signals it is about to call lock(); java.util.Random(SEED), default 1).
 * For each round where lock() threw, the key is read 0.1 s after the throw
 * (is it set to this registry's clientId?) and, if so, again 4.5 s after the
 * throw (3 x expireAfter: a key nobody renews is gone after 1.5 s). Rounds run
 * in batches of 25, each with a registry and a scheduler of its own (shut
 * down after its checks, which ends its leaked tasks).
 * Expected: 0 still held at 4.5 s. Observed: 0 with REENTRIES=0, all of them
 * with REENTRIES>0.
 */
public class InterruptedLockRenewed {
    static final long EXPIRE_AFTER = 1500;
    static final int BATCH = 25;
    static final long MAX_DELAY_NS = 1_500_000;

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        int reentries = Integer.parseInt(args[2]);
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 1;
        Random random = new Random(seed);
        LettuceConnectionFactory f = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        f.afterPropertiesSet();
        f.start();
        int returned = 0, threw = 0, keySet = 0, held = 0;
        long[] lockMicros = null;
        String firstThrow = null;
        try (RedisConnection c = f.getConnection()) {
            for (int start = 0; start < rounds; start += BATCH) {
                ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
                scheduler.initialize();
                RedisLockRegistry registry = new RedisLockRegistry(f, "repro", EXPIRE_AFTER); // renew every 500 ms
                registry.setRenewalTaskScheduler(scheduler);
                if (lockMicros == null) {
                    lockMicros = warmUp(registry); // single acquires only: no task leaks
                }
                List<String> pendingKeys = new ArrayList<>();
                List<Long> pendingAt = new ArrayList<>();
                String clientId = null;
                for (int round = start; round < Math.min(rounds, start + BATCH); round++) {
                    String name = "intr-" + reentries + "-" + seed + "-" + round;
                    Lock lock = registry.obtain(name);
                    if (clientId == null) {
                        String s = lock.toString(); // RedisLock [lockKey=..., lockedAt=..., clientId=UUID]
                        clientId = s.substring(s.indexOf("clientId=") + 9, s.lastIndexOf(']'));
                    }
                    if (reentries > 0) {
                        Thread worker = new Thread(() -> {
                            for (int i = 0; i < reentries; i++) {
                                lock.lock();
                                lock.lock(); // reentry: a second renewal task replaces the first in the field
                                lock.unlock();
                                lock.unlock(); // DEL, then cancels the second task only
                            }
                        });
                        worker.start();
                        worker.join();
                    }
                    long delay = (long) (random.nextDouble() * MAX_DELAY_NS);
                    AtomicReference<Throwable> error = new AtomicReference<>();
                    long[] thrownAt = new long[1];
                    boolean[] ready = new boolean[1];
                    Object sync = new Object();
                    CountDownLatch interruptSent = new CountDownLatch(1);
                    Thread t = new Thread(() -> {
                        synchronized (sync) {
                            ready[0] = true;
                        }
                        try {
                            lock.lock();
                        }
                        catch (Throwable e) {
                            thrownAt[0] = System.nanoTime();
                            error.set(e);
                            return;
                        }
                        // the interrupt came after the obtain's answer: wait for it, clear it, unlock in line
                        while (interruptSent.getCount() > 0) {
                            try {
                                interruptSent.await();
                            }
                            catch (InterruptedException ignored) {
                            }
                        }
                        Thread.interrupted();
                        lock.unlock();
                    });
                    t.start();
                    while (true) {
                        synchronized (sync) {
                            if (ready[0]) {
                                break;
                            }
                        }
                        Thread.onSpinWait();
                    }
                    long until = System.nanoTime() + delay;
                    while (System.nanoTime() < until) {
                        Thread.onSpinWait();
                    }
                    t.interrupt();
                    interruptSent.countDown();
                    t.join();
                    Throwable e = error.get();
                    if (e == null) {
                        returned++;
                        continue;
                    }
                    threw++;
                    if (firstThrow == null) {
                        firstThrow = chain(e);
                    }
                    sleepUntil(thrownAt[0] + 100_000_000L);
                    if (clientId.equals(get(c, "repro:" + name))) {
                        keySet++;
                        pendingKeys.add("repro:" + name);
                        pendingAt.add(thrownAt[0] + 3 * EXPIRE_AFTER * 1_000_000L);
                    }
                }
                for (int i = 0; i < pendingKeys.size(); i++) {
                    sleepUntil(pendingAt.get(i));
                    if (clientId.equals(get(c, pendingKeys.get(i)))) {
                        held++;
                    }
                }
                scheduler.shutdown(); // ends the leaked renewal tasks of this batch
                registry.destroy();
                for (String key : pendingKeys) {
                    c.keyCommands().del(key.getBytes(StandardCharsets.UTF_8));
                }
            }
        }
        f.destroy();
        Arrays.sort(lockMicros);
        System.out.println("reentries before=" + reentries + ": rounds=" + rounds + ", lock() returned=" + returned
                + ", lock() threw=" + threw + ", of those key set to the registry's clientId 0.1 s after=" + keySet
                + ", of those still held 4.5 s after=" + held);
        System.out.println("  (uninterrupted lock() median " + lockMicros[lockMicros.length / 2] + " us; interrupt "
                + "delays uniform 0.." + MAX_DELAY_NS / 1000 + " us, seed " + seed + ")");
        if (firstThrow != null) {
            System.out.println("  lock() threw: " + firstThrow);
        }
    }

    static long[] warmUp(RedisLockRegistry registry) {
        Lock lock = registry.obtain("intr-warmup");
        long[] micros = new long[200];
        for (int i = 0; i < micros.length; i++) {
            long t0 = System.nanoTime();
            lock.lock();
            micros[i] = (System.nanoTime() - t0) / 1000;
            lock.unlock();
        }
        return micros;
    }

    static String get(RedisConnection c, String key) {
        byte[] v = c.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    static void sleepUntil(long nanoTime) throws InterruptedException {
        long ms = (nanoTime - System.nanoTime()) / 1_000_000L;
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    static String chain(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable x = e; x != null; x = x.getCause()) {
            b.append(b.length() == 0 ? "" : " <- ").append(x.getClass().getSimpleName()).append(": ").append(x.getMessage());
        }
        return b.toString();
    }
}
